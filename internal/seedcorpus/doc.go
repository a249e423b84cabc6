// Package seedcorpus reads the seed corpora of Go's fuzz targets, so that a package's tests
// can check that its seeds still mean what their names say. A fuzz target FuzzXxx starts from
// the files in testdata/fuzz/FuzzXxx: each file is the line "go test fuzz v1" followed by one
// Go literal per argument of the target, here a single []byte("…"). `go test` runs every seed
// as a test case, but a target only checks the promises every input must keep (no panic, parse
// then encode gives the input back), so a seed that stopped parsing after a change of format
// still passes: it just exercises the refusal path instead of the one it was written for, and
// the fuzzer starts from weaker seeds without anybody noticing.
//
// # The map
//
//	seedcorpus.go  Seed (its name, its bytes, whether it is broken_), Read
//
// # Usage
//
//	for _, seed := range seedcorpus.Read(t, "testdata/fuzz/FuzzParseHeader") {
//		_, _, err := wire.ParseHeader(seed.Data)
//		if seed.Broken != (err != nil) {
//			t.Errorf("%s: %v", seed.Name, err)
//		}
//	}
//
// # Rules
//
//   - One naming rule for every corpus: a file whose name starts with "broken_" is an input
//     the parser must refuse, and every other file is one valid value.
//   - A file that is not one []byte seed fails the test.
package seedcorpus

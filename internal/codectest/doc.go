// Package codectest holds the checks every codec's tests share: expected bytes written as hex
// with spaces between the fields; errors that must wrap exactly one of the codec's sentinel
// errors and name the package they come from, so that a caller can test them with errors.Is and
// a reader can tell where they came from; and the worked examples of the protocol documents,
// read back so that a test compares them with the code.
//
// # The map
//
//	codectest.go  Unhex; CheckErr, CheckSentinel; ReadDoc and DocExample (the bytes between
//	              <!-- name --> and <!-- /name --> in net/PROTOCOL.md or game/PROTOCOL.md)
//
// # Usage
//
//	want := codectest.Unhex(t, "02 8006 0005 02 796f")
//	codectest.CheckErr(t, err, wire.ErrShort, "wire: ", wire.ErrShort, wire.ErrRange, ...)
//	fromDoc := codectest.DocExample(t, codectest.ReadDoc(t, "../PROTOCOL.md"), "example-packet")
//
// # Rules
//
//   - Test code only: it takes a testing.TB and fails the test on a bad input.
//   - A document's example is the hex at the start of its lines; what follows on a line is a
//     comment for the reader.
package codectest

// Package pkgsource parses a package's own source for the tests that check rules the compiler
// does not: no range over a map in the simulation (world), no clock, socket or goroutine in the
// sessions (game). Such a test reads the package's non-test files as the compiler would see
// them and walks their syntax.
//
// # The map
//
//	pkgsource.go  Parse: the non-test .go files of the package in the working directory
//
// # Usage
//
//	fset, files := pkgsource.Parse(t) // in a test of the package to check
//	for _, f := range files {
//		ast.Inspect(f, func(n ast.Node) bool { /* report what the rule forbids */ return true })
//	}
//
// # Rules
//
//   - Test code only; a package with no source files fails the test, so a rule never passes
//     by finding nothing.
package pkgsource

// Package report is how netlab shows what an experiment measured: as text on a terminal, as
// Markdown for BENCHMARKS.md, and as SVG charts for slides and web pages, all from one
// description.
//
// # The map
//
//	report.go  Section (a title, the command that reproduces it, and its Parts: paragraphs,
//	           tables, charts), Table, Chart, Dist (percentiles, nearest-rank); the number
//	           formats (F, Int, Ms, Pct, Link, Delays); WriteText, WriteMarkdown
//	chart.go   TextChart (ASCII), SVG and WriteSVG
//
// # Usage
//
//	s := &report.Section{Name: "hol", Title: "netlab hol: ...", Command: command}
//	s.Textf("%s messages at %s a second over %s", report.Int(n), report.F(rate, 0), report.Link(link))
//	t := &report.Table{Head: []string{"way", "p50", "p99"}}
//	t.Row("dependency graph", report.F(d.P(50), 0), report.F(d.P(99), 0))
//	s.Add(t)
//	err := report.WriteMarkdown(os.Stdout, []*report.Section{s})
//
// # Rules
//
//   - An experiment fills a Section and never formats anything itself, so the three outputs
//     always say the same thing.
//   - A delay is reported as percentiles of what was measured (Dist), never a mean alone.
//   - Output is deterministic: the same Sections give the same bytes, which is what the
//     golden test of cmd/netlab compares.
package report

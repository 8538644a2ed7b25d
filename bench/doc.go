// Package bench holds anchor-review's end-to-end benchmarks (SPEC section 6)
// and the helpers they share. It has no production code: everything lives
// in _test.go files, and `go test ./bench/` without -bench only runs
// TestBenchHelpers, a fast smoke test of the helpers.
//
// Every figure is measured in one benchmark run and reported with
// b.ReportMetric; BENCHMARKS.md at the repository root lists them with the
// command that reproduces each (`make bench` runs them all).
package bench

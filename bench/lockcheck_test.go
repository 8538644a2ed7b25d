package bench

import (
	"runtime"
	"strings"
	"testing"

	"github.com/anchor-review/anchor-review/internal/lockfixtures"
	"github.com/anchor-review/anchor-review/pkg/lockcheck"
)

// BenchmarkLockCheck runs the lock-file check on real package-lock.json
// changes written by npm: "upgrade" is a 7,999-line lock file becoming an
// 11,532-line one (a 5,207-line diff: jest 28 to 29, webpack, babel, ...
// and eight new tools), "new" the 11,532-line file added whole (an
// 11,532-line diff). It reports time and allocation per check (ns/op,
// B/op) and the peak live heap while checking (peak-heap-MiB, sampled
// every millisecond), beside the two texts' own size (texts-MiB).
func BenchmarkLockCheck(b *testing.B) {
	base, head := lockfixtures.Read(b, "npm-base.package-lock.json.gz"), lockfixtures.Read(b, "npm-big.package-lock.json.gz")
	for _, bc := range []struct{ name, base, head string }{
		{"upgrade", base, head},
		{"new", "", head},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC()
			peak := startHeapPeak()
			var n int
			for b.Loop() {
				fs, err := lockcheck.Check("package-lock.json", bc.base, bc.head)
				if err != nil {
					b.Fatal(err)
				}
				n = len(fs)
			}
			b.ReportMetric(float64(peak.Stop())/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(len(bc.base)+len(bc.head))/(1<<20), "texts-MiB")
			b.ReportMetric(float64(strings.Count(bc.head, "\n")), "head-lines")
			b.ReportMetric(float64(n), "findings")
		})
	}
}

package bench

import (
	"fmt"
	"testing"
	"time"
)

// modelLatency is L, the fake model's fixed reply latency.
const modelLatency = 200 * time.Millisecond

// BenchmarkCriticalPath reviews the team PR (12 personas, 15 findings to
// validate) through the real model client against a fake model that
// answers after L = 200 ms. Ideal is 2·L: one persona round, one validator
// round. It reports, per max-concurrency:
//   - x-ideal: mean wall time of ReviewPR / (2·L)
//   - speedup: wall time with max-concurrency 1 (measured once, before the
//     sub-benchmarks, 26 calls in a row) / mean wall time
//   - rounds: mean wall time / L (26 would be fully serial)
//
// 16 fits all 12 persona calls and all 15 validations in one round each;
// the default 8 needs two of each.
func BenchmarkCriticalPath(b *testing.B) {
	serial := newCritical(b, modelLatency).run(b, 1)
	b.Logf("max-concurrency 1: %v (%.1f rounds of L)", serial, float64(serial)/float64(modelLatency))
	for _, conc := range []int{16, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			c := newCritical(b, modelLatency)
			var total time.Duration
			n := 0
			for b.Loop() {
				total += c.run(b, conc)
				n++
			}
			mean := total / time.Duration(n)
			b.ReportMetric(float64(mean)/float64(2*modelLatency), "x-ideal")
			b.ReportMetric(float64(serial)/float64(mean), "speedup")
			b.ReportMetric(float64(mean)/float64(modelLatency), "rounds")
			b.ReportMetric(float64(c.model.MaxInFlight()), "max-in-flight")
		})
	}
}

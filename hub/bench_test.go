//go:build unix

package hub_test

// Benchmarks of the hub against the direct path (one official SDK client talking to
// the same stdio test server). Timings are reported, never asserted; the targets from
// the issue are in each benchmark's comment.
//
//	go test -run=NONE -bench=Call -benchtime=2000x ./hub/          (BenchmarkCall, BenchmarkCallRatio)
//	go test -run=NONE -bench='Startup|Memory' -benchtime=3x ./hub/
//
// The machine may be shared: BenchmarkCallRatio, which interleaves the two paths,
// is the comparison to trust; BenchmarkCall/hub's x-direct compares runs made at
// different times.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

const (
	// benchCallers is the number of concurrent callers of the parallel variants.
	benchCallers = 16
	// benchBatch is the number of calls per timed batch in BenchmarkCallRatio (in the
	// parallel mode, spread over benchCallers callers).
	benchBatch = 200
	// benchInitDelay is the --init-delay of every server in BenchmarkStartup.
	benchInitDelay = "300ms"
)

// benchEchoArgs are the arguments of every echo call, on both paths: the hub takes raw
// JSON, and the direct client is given the same raw JSON.
var benchEchoArgs = json.RawMessage(`{"text":"hello"}`)

// benchCall is one echo call on one path.
type benchCall = func(ctx context.Context) error

// benchQuietLogger drops everything: start-up summaries must not land in the output.
func benchQuietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// benchStartHub starts a hub over servers; it is closed when the benchmark ends (Close
// is idempotent, so callers may close it earlier to time it).
func benchStartHub(b *testing.B, servers ...config.Server) *hub.Hub {
	b.Helper()
	h := benchNewHub(servers...)
	b.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		b.Fatalf("hub.Start: %v", err)
	}
	benchCheckReady(b, h)
	return h
}

func benchNewHub(servers ...config.Server) *hub.Hub {
	cfg := &config.Config{Servers: servers}
	return hub.New(cfg, &hub.Options{
		Logger: benchQuietLogger(),
		// No heartbeats and no retries: nothing but the measured traffic on the pipes.
		Upstream: &upstream.Options{Heartbeat: -1, RetryFailed: -1},
	})
}

func benchCheckReady(b *testing.B, h *hub.Hub) {
	b.Helper()
	for _, st := range h.Status() {
		if st.State != upstream.Ready {
			b.Fatalf("server %s is %s: %s", st.Name, st.State, st.LastError)
		}
	}
}

// benchHubCall calls tool name through h.
func benchHubCall(h *hub.Hub, name string) benchCall {
	return func(ctx context.Context) error {
		res, err := h.Call(ctx, name, benchEchoArgs)
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("hub call %s: error result %q", name, tool.Text(res))
		}
		return nil
	}
}

// benchDirectSession connects an official SDK client to the test server exec'd with
// args, with the same client capabilities as the hub's own client. Closed at the end.
func benchDirectSession(b *testing.B, args ...string) *mcp.ClientSession {
	b.Helper()
	sess, err := benchDirectConnect(testserver.Build(b), args...)
	if err != nil {
		b.Fatalf("direct connect: %v", err)
	}
	b.Cleanup(func() { sess.Close() })
	return sess
}

func benchDirectConnect(bin string, args ...string) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, args...)}, nil)
}

// benchDirectCall calls echo on sess.
func benchDirectCall(sess *mcp.ClientSession) benchCall {
	return func(ctx context.Context) error {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: benchEchoArgs})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("direct call: error result %q", tool.Text(res))
		}
		return nil
	}
}

// benchTimed returns how long n calls with `callers` callers take.
func benchTimed(b *testing.B, n, callers int, call benchCall) time.Duration {
	b.Helper()
	wall, _ := benchTimedCPU(b, n, callers, call)
	return wall
}

// benchTimedCPU returns how long n calls with `callers` callers take, in wall time and
// in CPU time of this process (user + system, all threads, GC included; not the
// children's). CPU time barely moves when other processes compete for the cores.
func benchTimedCPU(b *testing.B, n, callers int, call benchCall) (wall, cpu time.Duration) {
	b.Helper()
	cpu0 := benchProcessCPU(b)
	start := time.Now()
	if err := testenv.RunCalls(context.Background(), n, testenv.Repeat(call, callers)); err != nil {
		b.Fatal(err)
	}
	wall = time.Since(start)
	return wall, benchProcessCPU(b) - cpu0
}

// benchProcessCPU is this process's CPU time so far (user + system).
func benchProcessCPU(b *testing.B) time.Duration {
	b.Helper()
	return benchRusageCPU(b, syscall.RUSAGE_SELF)
}

// benchRusageCPU is the CPU time (user + system) of who: RUSAGE_SELF, or
// RUSAGE_CHILDREN for the children that have ended and been waited for.
func benchRusageCPU(b *testing.B, who int) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var benchModes = []struct {
	name    string
	callers int
}{{"seq", 1}, {"par16", benchCallers}}

// BenchmarkCall is the in-process cost of one echo call on one stdio test server:
// direct = an official SDK client session, hub = hub.Call routed to the same server.
// The ratio between the two comes from BenchmarkCallRatio, which measures both paths
// interleaved in one run; separate runs are too far apart in time to compare.
func BenchmarkCall(b *testing.B) {
	paths := []struct {
		name string
		call func(b *testing.B) benchCall
	}{
		{"direct", func(b *testing.B) benchCall { return benchDirectCall(benchDirectSession(b)) }},
		{"hub", func(b *testing.B) benchCall {
			return benchHubCall(benchStartHub(b, testserver.Stdio(b, "ts")), "echo")
		}},
	}
	for _, p := range paths {
		b.Run(p.name, func(b *testing.B) {
			call := p.call(b)
			benchTimed(b, 50, 1, call) // warm-up
			for _, m := range benchModes {
				b.Run(m.name, func(b *testing.B) {
					b.ReportAllocs()
					b.ResetTimer()
					if err := testenv.RunCalls(context.Background(), b.N, testenv.Repeat(call, m.callers)); err != nil {
						b.Fatal(err)
					}
				})
			}
		})
	}
}

// BenchmarkCallRatio measures both paths interleaved in one benchmark. It runs rounds
// of four timed batches of benchBatch calls each: direct and hub sequentially, then
// direct and hub with benchCallers concurrent callers (which path goes first alternates
// by round), and takes hub/direct per batch pair. It reports the median ratios
// (median-ratio-seq, median-ratio-par16; target ≤ 1.05) and the median time per call
// of each path and mode; and the same in this process's CPU time (median-cpu-ratio-*,
// *-cpu-ns/call-*), which other load on the machine disturbs far less than wall time.
//
// b.N is the number of calls per path and mode (so -benchtime=2000x is 10 rounds, and
// a time-based -benchtime works too); it is rounded up to whole batches.
func BenchmarkCallRatio(b *testing.B) {
	direct := benchDirectCall(benchDirectSession(b))
	viaHub := benchHubCall(benchStartHub(b, testserver.Stdio(b, "ts")), "echo")
	for _, c := range []benchCall{direct, viaHub} { // warm-up, both modes
		benchTimed(b, benchBatch, 1, c)
		benchTimed(b, benchBatch, benchCallers, c)
	}
	type series struct{ ratio, directNs, hubNs, cpuRatio, directCPU, hubCPU []float64 }
	var seq, par series
	measure := func(s *series, round, callers int) {
		var d, h, dCPU, hCPU time.Duration
		if round%2 == 0 {
			d, dCPU = benchTimedCPU(b, benchBatch, callers, direct)
			h, hCPU = benchTimedCPU(b, benchBatch, callers, viaHub)
		} else {
			h, hCPU = benchTimedCPU(b, benchBatch, callers, viaHub)
			d, dCPU = benchTimedCPU(b, benchBatch, callers, direct)
		}
		s.ratio = append(s.ratio, float64(h)/float64(d))
		s.directNs = append(s.directNs, float64(d.Nanoseconds())/benchBatch)
		s.hubNs = append(s.hubNs, float64(h.Nanoseconds())/benchBatch)
		if dCPU > 0 {
			s.cpuRatio = append(s.cpuRatio, float64(hCPU)/float64(dCPU))
		}
		s.directCPU = append(s.directCPU, float64(dCPU.Nanoseconds())/benchBatch)
		s.hubCPU = append(s.hubCPU, float64(hCPU.Nanoseconds())/benchBatch)
	}
	rounds := (b.N + benchBatch - 1) / benchBatch
	b.ResetTimer()
	for i := range rounds {
		measure(&seq, i, 1)
		measure(&par, i, benchCallers)
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op") // an op is four calls; the per-call figures below say more
	b.ReportMetric(float64(rounds), "rounds")
	b.ReportMetric(testenv.Median(seq.ratio), "median-ratio-seq")
	b.ReportMetric(testenv.Median(par.ratio), "median-ratio-par16")
	b.ReportMetric(testenv.Median(seq.directNs), "direct-ns/call-seq")
	b.ReportMetric(testenv.Median(seq.hubNs), "hub-ns/call-seq")
	b.ReportMetric(testenv.Median(par.directNs), "direct-ns/call-par16")
	b.ReportMetric(testenv.Median(par.hubNs), "hub-ns/call-par16")
	// The same in host CPU time: what the hub costs the machine, steady under load.
	b.ReportMetric(testenv.Median(seq.cpuRatio), "median-cpu-ratio-seq")
	b.ReportMetric(testenv.Median(par.cpuRatio), "median-cpu-ratio-par16")
	b.ReportMetric(testenv.Median(seq.directCPU), "direct-cpu-ns/call-seq")
	b.ReportMetric(testenv.Median(seq.hubCPU), "hub-cpu-ns/call-seq")
	b.ReportMetric(testenv.Median(par.directCPU), "direct-cpu-ns/call-par16")
	b.ReportMetric(testenv.Median(par.hubCPU), "hub-cpu-ns/call-par16")
}

// BenchmarkStartup starts (hub.Start) and closes a hub of 20 stdio test servers that
// each take 300ms to answer initialize, a hub of one such server, and one such server
// through a bare SDK client (connect + tools/list), in alternating order. It reports
// the median start time of each and ratio-20-vs-1 (median over iterations of
// start(20)/start(1); target ≤ 1.5) and ratio-20-vs-direct, the close times, and the
// CPU time the host and the 20 servers spend. Each op is one of each; use
// -benchtime=3x.
func BenchmarkStartup(b *testing.B) {
	bin := testserver.Build(b)
	one := []config.Server{testserver.Stdio(b, "s00", "--init-delay", benchInitDelay)}
	var twenty []config.Server
	for i := range 20 {
		twenty = append(twenty, testserver.Stdio(b, fmt.Sprintf("s%02d", i), "--init-delay", benchInitDelay))
	}
	// startHub returns the wall time of Start and of Close, this process's CPU time
	// during Start, and the servers' CPU time over their whole lives.
	startHub := func(servers []config.Server) (start, stop, hostCPU, childCPU time.Duration) {
		h := benchNewHub(servers...)
		b.Cleanup(func() { h.Close() })
		child0 := benchRusageCPU(b, syscall.RUSAGE_CHILDREN)
		cpu0 := benchProcessCPU(b)
		t0 := time.Now()
		if err := h.Start(context.Background()); err != nil {
			b.Fatalf("hub.Start (%d servers): %v", len(servers), err)
		}
		t1 := time.Now()
		hostCPU = benchProcessCPU(b) - cpu0
		benchCheckReady(b, h)
		if got := len(h.Status()); got != len(servers) {
			b.Fatalf("%d servers, want %d", got, len(servers))
		}
		t2 := time.Now()
		h.Close() // reaps every child, so their CPU time is in RUSAGE_CHILDREN now
		stop = time.Since(t2)
		return t1.Sub(t0), stop, hostCPU, benchRusageCPU(b, syscall.RUSAGE_CHILDREN) - child0
	}
	startDirect := func() time.Duration {
		t0 := time.Now()
		sess, err := benchDirectConnect(bin, "--init-delay", benchInitDelay)
		if err != nil {
			b.Fatalf("direct connect: %v", err)
		}
		closed := false
		b.Cleanup(func() {
			if !closed {
				sess.Close()
			}
		})
		for _, err := range sess.Tools(context.Background(), nil) {
			if err != nil {
				b.Fatalf("direct tools/list: %v", err)
			}
		}
		d := time.Since(t0)
		sess.Close()
		closed = true
		return d
	}
	var s1, s20, sDirect, c1, c20, r, rDirect, host20, child20 []float64
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ResetTimer()
	for i := range b.N {
		var st1, st20, sd, cl1, cl20, h20, ch20 time.Duration
		if i%2 == 0 {
			sd = startDirect()
			st1, cl1, _, _ = startHub(one)
			st20, cl20, h20, ch20 = startHub(twenty)
		} else {
			st20, cl20, h20, ch20 = startHub(twenty)
			st1, cl1, _, _ = startHub(one)
			sd = startDirect()
		}
		s1, s20, sDirect = append(s1, ms(st1)), append(s20, ms(st20)), append(sDirect, ms(sd))
		c1, c20 = append(c1, ms(cl1)), append(c20, ms(cl20))
		host20, child20 = append(host20, ms(h20)), append(child20, ms(ch20))
		r = append(r, float64(st20)/float64(st1))
		rDirect = append(rDirect, float64(st20)/float64(sd))
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(testenv.Median(r), "ratio-20-vs-1")
	b.ReportMetric(testenv.Median(rDirect), "ratio-20-vs-direct")
	b.ReportMetric(testenv.Median(s1), "start-ms-1")
	b.ReportMetric(testenv.Median(s20), "start-ms-20")
	b.ReportMetric(testenv.Median(sDirect), "start-ms-direct")
	b.ReportMetric(testenv.Median(c1), "close-ms-1")
	b.ReportMetric(testenv.Median(c20), "close-ms-20")
	// Where the extra time of 20 goes: CPU of this process during Start(20), and of
	// the 20 servers (start to exit). When their sum over the cores available is near
	// start-ms-20 − start-ms-1, the extra time is CPU contention, not waiting.
	b.ReportMetric(testenv.Median(host20), "host-cpu-ms-start-20")
	b.ReportMetric(testenv.Median(child20), "servers-cpu-ms-20")
}

// benchHostMemory is this process's memory after a full GC that returns freed pages to
// the OS: resident set size (VmRSS), HeapInuse and goroutine count. The children's
// memory is not included.
type benchHostMemory struct {
	rssKiB, heapKiB float64
	goroutines      int
}

func benchReadHostMemory(b *testing.B) benchHostMemory {
	b.Helper()
	runtime.GC()
	debug.FreeOSMemory() // another GC, then the scavenger returns free pages: RSS is live memory
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return benchHostMemory{
		rssKiB:     float64(benchVmRSSKiB(b, os.Getpid())),
		heapKiB:    float64(ms.HeapInuse) / 1024,
		goroutines: runtime.NumGoroutine(),
	}
}

// benchVmRSSKiB is process pid's resident memory in KiB; the benchmark is skipped
// where /proc cannot tell it.
func benchVmRSSKiB(b *testing.B, pid int) int64 {
	b.Helper()
	kib, err := testenv.VmRSSKiB(pid)
	if err != nil {
		b.Skipf("resident memory: %v", err)
	}
	return kib
}

// BenchmarkMemoryPerServer is the host's memory per connected stdio server: a hub of
// 21 test servers against a hub of 1, measured while each is running (after Start has
// returned with every server ready), divided by 20. A warm-up cycle of 21 servers runs
// first, so that OS threads and pools the runtime keeps anyway are in both figures.
// Reports rss-KiB-per-server, heap-KiB-per-server (HeapInuse) and
// goroutines-per-server, plus the absolute RSS of both hubs. Use -benchtime=3x.
func BenchmarkMemoryPerServer(b *testing.B) {
	const small, large = 1, 21
	configs := func(n int) []config.Server {
		var out []config.Server
		for i := range n {
			out = append(out, testserver.Stdio(b, fmt.Sprintf("s%02d", i)))
		}
		return out
	}
	smallCfg, largeCfg := configs(small), configs(large)
	measure := func(servers []config.Server) benchHostMemory {
		h := benchNewHub(servers...)
		// The cleanup must not keep a closed hub reachable: it would count in the
		// next measurement.
		b.Cleanup(func() {
			if h != nil {
				h.Close()
			}
		})
		if err := h.Start(context.Background()); err != nil {
			b.Fatalf("hub.Start: %v", err)
		}
		benchCheckReady(b, h)
		// One call per server so that each connection's buffers are in use, as they
		// would be after the first tool call.
		for _, t := range h.Tools() {
			if t.OriginalName == "echo" {
				if err := benchHubCall(h, t.Name)(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
		}
		m := benchReadHostMemory(b)
		h.Close()
		h = nil
		return m
	}
	measure(largeCfg) // warm-up
	var rss, heap, gor, rssSmall, rssLarge []float64
	b.ResetTimer()
	for i := range b.N {
		var ms, ml benchHostMemory
		if i%2 == 0 {
			ms, ml = measure(smallCfg), measure(largeCfg)
		} else {
			ml, ms = measure(largeCfg), measure(smallCfg)
		}
		n := float64(large - small)
		rss = append(rss, (ml.rssKiB-ms.rssKiB)/n)
		heap = append(heap, (ml.heapKiB-ms.heapKiB)/n)
		gor = append(gor, float64(ml.goroutines-ms.goroutines)/n)
		rssSmall, rssLarge = append(rssSmall, ms.rssKiB), append(rssLarge, ml.rssKiB)
	}
	b.StopTimer()
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(testenv.Median(rss), "rss-KiB-per-server")
	b.ReportMetric(testenv.Median(heap), "heap-KiB-per-server")
	b.ReportMetric(testenv.Median(gor), "goroutines-per-server")
	b.ReportMetric(testenv.Median(rssSmall), "rss-KiB-1-server")
	b.ReportMetric(testenv.Median(rssLarge), "rss-KiB-21-servers")
}

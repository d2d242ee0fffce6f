package gateway_test

// Benchmarks of the gateway against the direct path: the same official SDK client
// calls the test server's echo tool either straight or through the real switchboard
// binary (`switchboard mcp`), which serves that same server to it. Both paths run in
// one benchmark, in interleaved batches, and the figures are medians over rounds.
// Timings are reported, never asserted; the targets from the issue are in each
// benchmark's comment.
//
//	go test -run=NONE -bench=Gateway -benchmem ./gateway/
//	go test -run=NONE -bench=Gateway -benchtime=20x ./gateway/   (20 rounds each)
//
// The gateway runs in its own process, as the direct server does, so -cpuprofile sees
// only the client side; each benchmark reports the gateway process's own CPU time per
// call (gateway-cpu-µs/call, from /proc/PID/task/*/schedstat) instead.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/internal/testserver"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

const (
	// benchCallers is the number of concurrent callers (and, over HTTP, of sessions)
	// of the throughput modes.
	benchCallers = 16
	// benchBatch is the number of calls in one timed batch, spread over the callers.
	benchBatch = 50
	// benchMinRounds is the least number of rounds each benchmark measures.
	benchMinRounds = 9
)

// benchEchoArgs are the arguments of every echo call on every path.
var benchEchoArgs = json.RawMessage(`{"text":"hello"}`)

// benchCall is one echo call on one session.
type benchCall = func(ctx context.Context) error

// benchMode is one way of loading the paths: the callers of each (one goroutine per
// entry), which share one batch of calls. floor is optional.
type benchMode struct {
	name                   string
	direct, gateway, floor []benchCall
}

// benchSeries collects one mode's per-round figures.
type benchSeries struct {
	ratio      []float64 // gateway wall time ÷ direct wall time of the same round
	directNs   []float64 // wall time per call
	gatewayNs  []float64
	floorNs    []float64
	gatewayCPU []float64 // CPU time of the gateway process per call
}

// benchRun measures the modes in rounds until b.Loop stops, and at least
// benchMinRounds: in each round, a batch on each path per mode, the path that goes
// first rotating by round. gatewayPID is the gateway's process, whose CPU time each
// gateway batch records.
func benchRun(b *testing.B, gatewayPID int, modes []benchMode) []*benchSeries {
	b.Helper()
	for _, m := range modes { // warm-up: connections, pools, the JIT of the caches
		for _, callers := range [][]benchCall{m.direct, m.gateway, m.floor} {
			if callers != nil {
				benchTimed(b, callers, 0)
			}
		}
	}
	series := make([]*benchSeries, len(modes))
	for i := range series {
		series[i] = &benchSeries{}
	}
	round := 0
	measure := func() {
		for i, m := range modes {
			s := series[i]
			var d, g time.Duration
			paths := []func(){
				func() { d, _ = benchTimed(b, m.direct, 0) },
				func() {
					var gCPU time.Duration
					g, gCPU = benchTimed(b, m.gateway, gatewayPID)
					if gCPU >= 0 {
						s.gatewayCPU = append(s.gatewayCPU, float64(gCPU.Nanoseconds())/benchBatch)
					}
				},
			}
			if m.floor != nil {
				paths = append(paths, func() {
					f, _ := benchTimed(b, m.floor, 0)
					s.floorNs = append(s.floorNs, float64(f.Nanoseconds())/benchBatch)
				})
			}
			for j := range paths {
				paths[(round+j)%len(paths)]()
			}
			s.ratio = append(s.ratio, float64(g)/float64(d))
			s.directNs = append(s.directNs, float64(d.Nanoseconds())/benchBatch)
			s.gatewayNs = append(s.gatewayNs, float64(g.Nanoseconds())/benchBatch)
		}
		round++
	}
	for b.Loop() {
		measure()
	}
	// A median of two or three rounds says little, and on a slow machine b.Loop may
	// stop there: top up (b.Loop has stopped the timer, and no metric uses it).
	for round < benchMinRounds {
		measure()
	}
	b.ReportMetric(0, "ns/op") // an op is a round of batches; the figures below say more
	b.ReportMetric(float64(round), "rounds")
	return series
}

// benchTimed makes one batch of calls with callers and returns its wall time and the
// CPU time process pid spent meanwhile (-1 when pid is 0 or its CPU time is unknown).
func benchTimed(b *testing.B, callers []benchCall, pid int) (wall, cpu time.Duration) {
	b.Helper()
	cpu0 := benchProcessCPU(pid)
	start := time.Now()
	if err := testenv.RunCalls(context.Background(), benchBatch, callers); err != nil {
		b.Fatal(err)
	}
	wall = time.Since(start)
	cpu1 := benchProcessCPU(pid)
	if cpu0 < 0 || cpu1 < 0 {
		return wall, -1
	}
	return wall, cpu1 - cpu0
}

// benchProcessCPU is the CPU time process pid has spent so far, summed over its
// threads from /proc/PID/task/*/schedstat (nanoseconds, unlike the clock ticks of
// /proc/PID/stat); -1 when pid is 0 or the files cannot be read.
func benchProcessCPU(pid int) time.Duration {
	if pid <= 0 {
		return -1
	}
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(files) == 0 {
		return -1
	}
	var sum time.Duration
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that ended: Go rarely ends threads, so this is small
		}
		fields := strings.Fields(string(data))
		if len(fields) == 0 {
			return -1
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return -1
		}
		sum += time.Duration(ns)
	}
	return sum
}

// benchMicros is a median time per call in µs.
func benchMicros(nsPerCall []float64) float64 { return testenv.Median(nsPerCall) / 1e3 }

// benchCallsPerSecond is the throughput of a median time per call.
func benchCallsPerSecond(nsPerCall []float64) float64 {
	m := testenv.Median(nsPerCall)
	if m == 0 {
		return 0
	}
	return 1e9 / m
}

// benchReportLatency reports a sequential mode: the median gateway ÷ direct ratio
// and each path's time per call.
func benchReportLatency(b *testing.B, s *benchSeries) {
	b.ReportMetric(testenv.Median(s.ratio), "ratio")
	b.ReportMetric(benchMicros(s.directNs), "direct-µs/call")
	b.ReportMetric(benchMicros(s.gatewayNs), "gateway-µs/call")
	if len(s.floorNs) > 0 {
		b.ReportMetric(benchMicros(s.floorNs), "floor-µs/call")
	}
}

// benchReportThroughput reports a concurrent mode: the median gateway ÷ direct
// throughput and each path's calls per second, the metric names ending in suffix.
func benchReportThroughput(b *testing.B, s *benchSeries, suffix string) {
	b.ReportMetric(testenv.Median(benchInverse(s.ratio)), "throughput-ratio"+suffix)
	b.ReportMetric(benchCallsPerSecond(s.directNs), "direct-calls/s"+suffix)
	b.ReportMetric(benchCallsPerSecond(s.gatewayNs), "gateway-calls/s"+suffix)
	if len(s.floorNs) > 0 {
		b.ReportMetric(benchCallsPerSecond(s.floorNs), "floor-calls/s"+suffix)
	}
}

// benchInverse is 1/x for each x: a wall-time ratio becomes a throughput ratio.
func benchInverse(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = 1 / x
	}
	return out
}

// benchClient is the official SDK client both paths use, with the same options.
func benchClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
}

// benchConnect connects a client session on transport; it is closed when the
// benchmark ends.
func benchConnect(b *testing.B, what string, transport mcp.Transport) *mcp.ClientSession {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := benchClient().Connect(ctx, transport, nil)
	if err != nil {
		b.Fatalf("connect %s: %v", what, err)
	}
	b.Cleanup(func() { sess.Close() })
	return sess
}

// benchEcho calls echo on sess and checks the answer.
func benchEcho(sess *mcp.ClientSession) benchCall {
	return func(ctx context.Context) error {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: benchEchoArgs})
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("echo: error result %q", tool.Text(res))
		}
		return nil
	}
}

// benchWaitForEcho waits until sess lists echo. The gateway may answer before its
// catalog is complete (it can start its servers when the first client arrives), and a
// client calls what it has seen listed.
func benchWaitForEcho(b *testing.B, sess *mcp.ClientSession) {
	b.Helper()
	testenv.WaitFor(b, "echo in the gateway's tools/list", 20*time.Second, func() bool {
		res, err := sess.ListTools(context.Background(), nil)
		if err != nil {
			b.Fatalf("tools/list: %v", err)
		}
		return slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "echo" })
	})
}

// benchServerPID asks the test server behind sess (directly, or through the gateway)
// for its process id.
func benchServerPID(b *testing.B, sess *mcp.ClientSession) int {
	b.Helper()
	res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "pid", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		b.Fatalf("pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(tool.Text(res)))
	if err != nil || res.IsError {
		b.Fatalf("pid: %q (error result %v)", tool.Text(res), res.IsError)
	}
	return pid
}

// benchGatewayConfig writes an mcp.json that gives the gateway the one server ts:
// no heartbeats and no retries, so that nothing but the measured calls crosses the
// gateway's connections.
func benchGatewayConfig(b *testing.B, ts map[string]any) string {
	b.Helper()
	cfg := map[string]any{
		"mcpServers":  map[string]any{"ts": ts},
		"switchboard": map[string]any{"heartbeat": 0, "retryFailed": 0},
	}
	data, err := json.Marshal(cfg)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchStderrFile is a file in the benchmark's temporary directory for a child's
// stderr: an *os.File needs no copying goroutine, and it is logged if the benchmark
// fails.
func benchStderrFile(b *testing.B, name string) *os.File {
	b.Helper()
	f, err := os.Create(filepath.Join(b.TempDir(), name))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if b.Failed() {
			if data, err := os.ReadFile(f.Name()); err == nil {
				b.Logf("%s:\n%s", name, data)
			}
		}
		f.Close()
	})
	return f
}

// benchStdioGateway starts `switchboard mcp --config CONFIG` over stdio and connects
// a session to it; the session's Close closes the gateway's stdin, and the gateway
// then stops its servers and exits. It returns the session and the gateway's pid.
func benchStdioGateway(b *testing.B, config string) (*mcp.ClientSession, int) {
	b.Helper()
	cmd := exec.Command(testenv.Switchboard(b), "mcp", "--config", config, "--log-level", "warn")
	cmd.Stderr = benchStderrFile(b, "switchboard.stderr")
	sess := benchConnect(b, "gateway (stdio)", &mcp.CommandTransport{Command: cmd})
	benchWaitForEcho(b, sess)
	return sess, cmd.Process.Pid
}

// benchHTTPGateway starts `switchboard mcp --listen 127.0.0.1:0 --config CONFIG` and
// returns its Streamable HTTP endpoint (read from its "gateway listening" log line)
// and its pid. It is stopped (SIGTERM, then SIGKILL) when the benchmark ends.
func benchHTTPGateway(b *testing.B, config string) (url string, pid int) {
	b.Helper()
	stderr := benchStderrFile(b, "switchboard.stderr")
	cmd := exec.Command(testenv.Switchboard(b), "mcp", "--listen", "127.0.0.1:0",
		"--config", config, "--log-format", "json")
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		b.Fatalf("starting switchboard: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	b.Cleanup(func() { benchStop(b, cmd, exited) })
	testenv.WaitFor(b, "the gateway's listening line", 20*time.Second, func() bool {
		select {
		case <-exited:
			b.Fatalf("switchboard exited before listening")
		default:
		}
		data, _ := os.ReadFile(stderr.Name())
		for line := range strings.Lines(string(data)) {
			var rec struct {
				Msg string `json:"msg"`
				URL string `json:"url"`
			}
			if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg == "gateway listening" && rec.URL != "" {
				url = rec.URL
				return true
			}
		}
		return false
	})
	return url, cmd.Process.Pid
}

// benchStop sends SIGTERM (the gateway then closes its hub, which stops its servers),
// waits up to 10 s, then kills.
func benchStop(b *testing.B, cmd *exec.Cmd, exited <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		return
	case <-time.After(10 * time.Second):
	}
	b.Errorf("switchboard (pid %d) ignored SIGTERM for 10s; killing it", cmd.Process.Pid)
	_ = cmd.Process.Kill()
	<-exited
}

// benchHTTPClient is the HTTP client of every benchmark session: it keeps enough idle
// connections for all callers, so that the client side never re-dials (the default
// transport keeps 2 per host) and any churn measured is the gateway's own.
func benchHTTPClient(b *testing.B) *http.Client {
	b.Helper()
	tr := &http.Transport{MaxIdleConns: 4 * benchCallers, MaxIdleConnsPerHost: 4 * benchCallers}
	b.Cleanup(tr.CloseIdleConnections) // registered first, so it runs after the sessions close
	return &http.Client{Transport: tr}
}

// BenchmarkGatewayStdio: client --stdio--> `switchboard mcp` --stdio--> test server,
// against client --stdio--> test server, and against the floor: client --stdio-->
// test server --proxy (a plain SDK server re-serving an SDK client's tools, no
// switchboard code) --stdio--> test server. Each round measures the paths with one
// caller (seq) and with benchCallers concurrent calls on the one session (par16; a
// stdio server has one client, so 16 clients would be 16 gateway processes, each the
// seq case). Reports:
//
//	ratio                median over rounds of gateway ÷ direct wall time, seq (target ≤ 2.3)
//	floor-ratio          the same for the plain SDK proxy
//	direct-µs/call, gateway-µs/call, floor-µs/call    median time per call, seq
//	throughput-ratio     median of gateway calls/s ÷ direct calls/s, par16 (target ≥ 0.5)
//	direct-calls/s, gateway-calls/s, floor-calls/s    par16
//	gateway-cpu-µs/call[-par16]             CPU time of the switchboard process per call
func BenchmarkGatewayStdio(b *testing.B) {
	bin := testserver.Build(b)
	directCmd := exec.Command(bin)
	direct := benchConnect(b, "test server (stdio)", &mcp.CommandTransport{Command: directCmd})
	floor := benchConnect(b, "plain SDK proxy (stdio)", &mcp.CommandTransport{Command: exec.Command(bin, "--proxy", bin, "--proxy-protocol", upstream.DefaultProtocolVersion)})
	viaGateway, gatewayPID := benchStdioGateway(b, benchGatewayConfig(b, map[string]any{"command": bin}))
	directPID := benchServerPID(b, direct)
	if benchServerPID(b, viaGateway) == directPID || benchServerPID(b, floor) == directPID {
		b.Fatal("the gateway or the floor reached the direct path's server")
	}
	d, g, f := benchEcho(direct), benchEcho(viaGateway), benchEcho(floor)
	s := benchRun(b, gatewayPID, []benchMode{
		{"seq", []benchCall{d}, []benchCall{g}, []benchCall{f}},
		{"par16", testenv.Repeat(d, benchCallers), testenv.Repeat(g, benchCallers), testenv.Repeat(f, benchCallers)},
	})
	seq, par := s[0], s[1]
	benchReportLatency(b, seq)
	b.ReportMetric(testenv.Median(seq.floorNs)/testenv.Median(seq.directNs), "floor-ratio")
	benchReportThroughput(b, par, "")
	b.ReportMetric(benchMicros(seq.gatewayCPU), "gateway-cpu-µs/call")
	b.ReportMetric(benchMicros(par.gatewayCPU), "gateway-cpu-µs/call-par16")
}

// BenchmarkGatewayHTTP: client --Streamable HTTP--> `switchboard mcp --listen`
// (the real binary, in its own process like the server) --Streamable HTTP--> test
// server (--http), against client --Streamable HTTP--> the same test server, and
// against the floor: the same client --> test server --http --proxy (a plain SDK
// server re-serving an SDK client's tools, no switchboard code, in its own process)
// --> the same test server; all on loopback. Each round measures the paths with one
// caller (seq), with benchCallers sessions making calls at once (sessions16), and
// with benchCallers concurrent calls on one session (par16). Reports:
//
//	added-ms             median gateway − median direct time per call, seq (target ≤ 0.3)
//	floor-added-ms       median plain SDK proxy − median direct, seq: what any
//	                     gateway built on the SDK's server and client adds
//	over-floor-ms        median gateway − median plain SDK proxy, seq: switchboard's own cost
//	ratio, direct-µs/call, gateway-µs/call, floor-µs/call  seq
//	throughput-ratio     median of gateway calls/s ÷ direct calls/s, sessions16 (target ≥ 0.5)
//	direct-calls/s, gateway-calls/s, floor-calls/s        sessions16
//	throughput-ratio-1session, direct-calls/s-1session, gateway-calls/s-1session  par16
//	gateway-cpu-µs/call[-sessions16]        CPU time of the switchboard process per call
func BenchmarkGatewayHTTP(b *testing.B) {
	upstreamURL := testserver.StartHTTP(b) + "/mcp"
	floorURL := testserver.StartHTTP(b, "--proxy", upstreamURL, "--proxy-protocol", upstream.DefaultProtocolVersion) + "/mcp"
	gatewayURL, gatewayPID := benchHTTPGateway(b, benchGatewayConfig(b, map[string]any{"type": "http", "url": upstreamURL}))
	client := benchHTTPClient(b)
	var direct, viaGateway, floor []benchCall
	for i := range benchCallers {
		ds := benchConnect(b, "test server (http)", &mcp.StreamableClientTransport{Endpoint: upstreamURL, HTTPClient: client})
		gs := benchConnect(b, "gateway (http)", &mcp.StreamableClientTransport{Endpoint: gatewayURL, HTTPClient: client})
		fs := benchConnect(b, "plain SDK proxy (http)", &mcp.StreamableClientTransport{Endpoint: floorURL, HTTPClient: client})
		if i == 0 {
			benchWaitForEcho(b, gs)
			pid := benchServerPID(b, ds)
			if benchServerPID(b, gs) != pid || benchServerPID(b, fs) != pid {
				b.Fatal("the paths reach different servers")
			}
		}
		direct, viaGateway, floor = append(direct, benchEcho(ds)), append(viaGateway, benchEcho(gs)), append(floor, benchEcho(fs))
	}
	s := benchRun(b, gatewayPID, []benchMode{
		{"seq", direct[:1], viaGateway[:1], floor[:1]},
		{"sessions16", direct, viaGateway, floor},
		{"par16", testenv.Repeat(direct[0], benchCallers), testenv.Repeat(viaGateway[0], benchCallers), nil},
	})
	seq, sessions, par := s[0], s[1], s[2]
	ms := func(ns []float64) float64 { return testenv.Median(ns) / 1e6 }
	b.ReportMetric(ms(seq.gatewayNs)-ms(seq.directNs), "added-ms")
	b.ReportMetric(ms(seq.floorNs)-ms(seq.directNs), "floor-added-ms")
	b.ReportMetric(ms(seq.gatewayNs)-ms(seq.floorNs), "over-floor-ms")
	benchReportLatency(b, seq)
	benchReportThroughput(b, sessions, "")
	benchReportThroughput(b, par, "-1session")
	b.ReportMetric(benchMicros(seq.gatewayCPU), "gateway-cpu-µs/call")
	b.ReportMetric(benchMicros(sessions.gatewayCPU), "gateway-cpu-µs/call-sessions16")
}

// BenchmarkGatewayMemoryPerSession is the resident memory that `switchboard mcp
// --listen` (the real binary) takes per connected Streamable HTTP client session,
// against the test server's (a plain SDK server) for the same clients. Both run at
// the GC setting of $GOGC, or else at the binary's default (GOGC=400), so that the
// ratio is the gateway's own. Each round starts both afresh, connects one session to
// each and makes a call, reads each process's VmRSS, then connects benchMemSessions
// more sessions to each, every one listing the tools and calling echo once (so that
// its buffers are in use), reads VmRSS again and divides the growth by
// benchMemSessions. Reports (medians over rounds, at least 3):
//
//	gateway-rss-KiB/session, direct-rss-KiB/session, and their ratio
//	gateway-rss-MiB-idle     the gateway's VmRSS with one session
func BenchmarkGatewayMemoryPerSession(b *testing.B) {
	const benchMemSessions = 100
	if os.Getenv("GOGC") == "" {
		b.Setenv("GOGC", "400") // the children's: the binary's default, given to the test server too
	}
	var gw, direct, ratio, idle []float64
	rss := func(pid int) float64 {
		kib, err := testenv.VmRSSKiB(pid)
		if err != nil {
			b.Skipf("resident memory: %v", err)
		}
		return float64(kib)
	}
	for range max(b.N, 3) {
		upstreamURL := testserver.StartHTTP(b) + "/mcp"
		gatewayURL, gatewayPID := benchHTTPGateway(b, benchGatewayConfig(b, map[string]any{"type": "http", "url": upstreamURL}))
		client := benchHTTPClient(b)
		var open []*mcp.ClientSession
		connect := func(url string) *mcp.ClientSession {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sess, err := benchClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil)
			if err != nil {
				b.Fatalf("connect %s: %v", url, err)
			}
			open = append(open, sess)
			return sess
		}
		use := func(sess *mcp.ClientSession) {
			if _, err := sess.ListTools(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
			if err := benchEcho(sess)(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		gs, ds := connect(gatewayURL), connect(upstreamURL)
		benchWaitForEcho(b, gs)
		use(gs)
		use(ds)
		directPID := benchServerPID(b, ds)
		g0, d0 := rss(gatewayPID), rss(directPID)
		for range benchMemSessions {
			use(connect(gatewayURL))
			use(connect(upstreamURL))
		}
		g1, d1 := rss(gatewayPID), rss(directPID)
		gw = append(gw, (g1-g0)/benchMemSessions)
		direct = append(direct, (d1-d0)/benchMemSessions)
		ratio = append(ratio, (g1-g0)/(d1-d0))
		idle = append(idle, g0/1024)
		for _, sess := range open {
			sess.Close()
		}
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(testenv.Median(gw), "gateway-rss-KiB/session")
	b.ReportMetric(testenv.Median(direct), "direct-rss-KiB/session")
	b.ReportMetric(testenv.Median(ratio), "ratio")
	b.ReportMetric(testenv.Median(idle), "gateway-rss-MiB-idle")
}

//go:build unix

package api_test

// The API's own cost: POST /v1/tools/{name}/call on loopback against hub.Call in the
// same process, on the same demo clock server, measured interleaved in one run so
// that whatever else loads the machine weighs on both alike. Timings are reported,
// never asserted; the targets (issue 19) are in the benchmark's comment.
//
//	go test -run=NONE -bench=APICost -benchtime=4000x ./api/

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
	"github.com/switchboard-mcp/switchboard/config"
	"github.com/switchboard-mcp/switchboard/hub"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/session"
	"github.com/switchboard-mcp/switchboard/tool"
	"github.com/switchboard-mcp/switchboard/upstream"
)

const (
	// benchCallers is the number of concurrent callers of the parallel mode.
	benchCallers = 16
	// benchBatch is the number of calls per timed batch (in the parallel mode, spread
	// over benchCallers callers).
	benchBatch = 200
)

// benchArgs are the arguments of every call on both paths: a deterministic answer.
var benchArgs = json.RawMessage(`{"time":"2026-01-02T03:04:05Z","to":"Asia/Tokyo"}`)

type benchCall = func(ctx context.Context) error

// benchServe starts a hub over the demo clock server and the API over it on a
// loopback port, set up as `switchboard serve` sets it up: a log line per request
// (JSON, formatted and dropped), metrics, a session store. Everything stops when the
// benchmark ends.
func benchServe(b *testing.B) (*hub.Hub, string) {
	b.Helper()
	h := hub.New(&config.Config{Source: "<bench>", Servers: []config.Server{clockServer(b)}}, &hub.Options{
		Logger: slog.New(slog.DiscardHandler),
		// No heartbeats and no retries: nothing but the measured traffic on the pipe.
		Upstream: &upstream.Options{Heartbeat: -1, RetryFailed: -1},
	})
	b.Cleanup(func() { h.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.Start(ctx); err != nil {
		b.Fatalf("hub start: %v", err)
	}
	sessions := session.NewJanitor(session.NewMemory(), nil)
	b.Cleanup(func() { sessions.Close() })
	srv, err := api.New(h, &api.Options{
		Sessions: sessions,
		Version:  "bench",
		Logger:   slog.New(slog.NewJSONHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return h, "http://" + ln.Addr().String()
}

// benchHubCall is the in-process path: hub.Call.
func benchHubCall(h *hub.Hub) benchCall {
	return func(ctx context.Context) error {
		res, err := h.Call(ctx, "convert_time", benchArgs)
		if err != nil {
			return err
		}
		if res.IsError {
			return fmt.Errorf("hub call: error result %q", tool.Text(res))
		}
		return nil
	}
}

// benchHealthz is the floor of any request to the API: GET /healthz on the same
// server, through the same middleware, with no tool call.
func benchHealthz(b *testing.B, url string) benchCall {
	tr := &http.Transport{}
	b.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/healthz", nil)
		if err != nil {
			return err
		}
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if err == nil && res.StatusCode != http.StatusOK {
			err = fmt.Errorf("GET /healthz: %d", res.StatusCode)
		}
		return err
	}
}

// benchHTTPCall is the API's path: a keep-alive client posting the same call to the
// same hub, reading the whole answer.
func benchHTTPCall(b *testing.B, url string) benchCall {
	tr := &http.Transport{MaxIdleConnsPerHost: 2 * benchCallers}
	b.Cleanup(tr.CloseIdleConnections)
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	body := []byte(`{"arguments": ` + string(benchArgs) + `}`)
	target := url + "/v1/tools/convert_time/call"
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		res, err := c.Do(req)
		if err != nil {
			return err
		}
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		if res.StatusCode != http.StatusOK || !bytes.Contains(data, []byte(`"isError": false`)) {
			return fmt.Errorf("POST %s: %d %s", target, res.StatusCode, data)
		}
		return nil
	}
}

// benchLatencies makes n calls one after another and returns each one's duration, and
// the CPU time this process spent on them in all (client and API alike; not the
// server's, a child process).
func benchLatencies(b *testing.B, n int, call benchCall) (lat []float64, cpu time.Duration) {
	b.Helper()
	lat = make([]float64, 0, n)
	cpu0 := benchCPU(b)
	for range n {
		start := time.Now()
		if err := call(context.Background()); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, float64(time.Since(start).Nanoseconds()))
	}
	return lat, benchCPU(b) - cpu0
}

// benchCPU is this process's CPU time so far (user + system): other load on the
// machine disturbs it far less than wall time.
func benchCPU(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchWall is how long n calls spread over `callers` concurrent callers take.
func benchWall(b *testing.B, n, callers int, call benchCall) time.Duration {
	b.Helper()
	start := time.Now()
	if err := testenv.RunCalls(context.Background(), n, testenv.Repeat(call, callers)); err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// BenchmarkAPICost runs rounds of timed batches of benchBatch calls to the demo clock
// server's convert_time: hub.Call and POST /v1/tools/convert_time/call one at a time
// (and GET /healthz, the floor of any request), then both calls again with
// benchCallers concurrent callers (which path goes first alternates by round).
// It reports
//
//   - added-ms-p50-seq: the median latency of an HTTP call minus that of an
//     in-process call, over every sequential call of the run (target ≤ 0.15 ms);
//   - throughput-ratio-par16: HTTP calls per second over in-process calls per
//     second with benchCallers callers, the median over rounds (target ≥ 0.8);
//   - added-cpu-us/call-seq: the CPU time this process spends on an HTTP call (the
//     client's and the API's) beyond an in-process call's, which other load on the
//     machine barely moves; and healthz-ms-p50-seq, the HTTP round trip alone;
//   - the medians and 99th percentiles of each path's sequential latency, and each
//     path's parallel throughput.
//
// b.N is the number of calls per path and mode, rounded up to whole batches.
func BenchmarkAPICost(b *testing.B) {
	h, url := benchServe(b)
	inProcess, viaHTTP, healthz := benchHubCall(h), benchHTTPCall(b, url), benchHealthz(b, url)
	for _, c := range []benchCall{inProcess, viaHTTP} { // warm-up, both modes
		benchLatencies(b, benchBatch, c)
		benchWall(b, benchBatch, benchCallers, c)
	}
	benchLatencies(b, benchBatch, healthz)
	var hubSeq, httpSeq, floorSeq, addedCPU, ratio, hubRate, httpRate []float64
	rounds := (b.N + benchBatch - 1) / benchBatch
	b.ResetTimer()
	for i := range rounds {
		var hl, wl []float64
		var hc, wc time.Duration
		if i%2 == 0 {
			hl, hc = benchLatencies(b, benchBatch, inProcess)
			wl, wc = benchLatencies(b, benchBatch, viaHTTP)
		} else {
			wl, wc = benchLatencies(b, benchBatch, viaHTTP)
			hl, hc = benchLatencies(b, benchBatch, inProcess)
		}
		fl, _ := benchLatencies(b, benchBatch, healthz)
		hubSeq, httpSeq, floorSeq = append(hubSeq, hl...), append(httpSeq, wl...), append(floorSeq, fl...)
		addedCPU = append(addedCPU, float64((wc-hc).Microseconds())/benchBatch)

		var hw, ww time.Duration
		if i%2 == 0 {
			hw = benchWall(b, benchBatch, benchCallers, inProcess)
			ww = benchWall(b, benchBatch, benchCallers, viaHTTP)
		} else {
			ww = benchWall(b, benchBatch, benchCallers, viaHTTP)
			hw = benchWall(b, benchBatch, benchCallers, inProcess)
		}
		ratio = append(ratio, float64(hw)/float64(ww))
		hubRate = append(hubRate, benchBatch/hw.Seconds())
		httpRate = append(httpRate, benchBatch/ww.Seconds())
	}
	b.StopTimer()
	ms := func(ns float64) float64 { return ns / 1e6 }
	b.ReportMetric(0, "ns/op") // an op is many calls; the figures below say more
	b.ReportMetric(float64(rounds), "rounds")
	b.ReportMetric(ms(testenv.Median(httpSeq)-testenv.Median(hubSeq)), "added-ms-p50-seq")
	b.ReportMetric(testenv.Median(ratio), "throughput-ratio-par16")
	b.ReportMetric(testenv.Median(addedCPU), "added-cpu-us/call-seq")
	b.ReportMetric(ms(testenv.Median(floorSeq)), "healthz-ms-p50-seq")
	b.ReportMetric(ms(testenv.Median(hubSeq)), "hub-ms-p50-seq")
	b.ReportMetric(ms(testenv.Median(httpSeq)), "http-ms-p50-seq")
	b.ReportMetric(ms(percentile(hubSeq, 0.99)), "hub-ms-p99-seq")
	b.ReportMetric(ms(percentile(httpSeq, 0.99)), "http-ms-p99-seq")
	b.ReportMetric(testenv.Median(hubRate), "hub-calls/s-par16")
	b.ReportMetric(testenv.Median(httpRate), "http-calls/s-par16")
}

// percentile is the p-th quantile of xs (nearest rank); xs is not changed.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/fakellm"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// loadEnv turns TestServeLoad into the long run of the README's figures (`make load`):
// 64 clients for 30 s, the notes server killed every 5 s.
const loadEnv = "SWITCHBOARD_LOAD"

// loadSpec is one load run: how many clients, for how long, and how often the notes
// server is killed.
type loadSpec struct {
	clients   int
	duration  time.Duration
	killEvery time.Duration
	// timeout bounds every request: one that takes longer has hung.
	timeout time.Duration
}

// A load request is one of three kinds: a call to the clock server (never killed),
// a call to the notes server (killed under way: it may fail), and a chat completion
// whose fake model calls a clock tool (it must not fail either).
const (
	kindClock = "clock call"
	kindNotes = "notes call"
	kindChat  = "chat completion"
)

var loadKinds = []string{kindClock, kindNotes, kindChat}

// loadResult is what the clients saw, by kind of request.
type loadResult struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	errors    map[string][]string // the first few messages of each kind's failures
	failed    map[string]int
}

func (r *loadResult) add(kind string, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies[kind] = append(r.latencies[kind], d)
	if err != nil {
		r.failed[kind]++
		if len(r.errors[kind]) < 5 {
			r.errors[kind] = append(r.errors[kind], err.Error())
		}
	}
}

// TestServeLoad: clients call tools and chat completions on a real `switchboard serve`
// while its notes server is SIGKILLed again and again. No request runs past its
// timeout, calls to the clock server and chat completions (whose model calls a clock
// tool) never fail, the notes server comes back each time, serve's goroutines go back
// to their number before the load, and SIGTERM ends it with exit 0 and no process
// left. By default a short run (16 clients, 3 s, one kill) for the normal suite; with
// SWITCHBOARD_LOAD=1 (`make load`) the long run whose figures the README gives:
// requests/s, p50/p99 latency and errors by kind, resident memory and goroutines at
// start and end.
func TestServeLoad(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds and kills the notes server through /proc")
	}
	spec := loadSpec{clients: 16, duration: 3 * time.Second, timeout: 30 * time.Second}
	long := os.Getenv(loadEnv) != ""
	if long {
		spec = loadSpec{clients: 64, duration: 30 * time.Second, killEvery: 5 * time.Second, timeout: 30 * time.Second}
	} else {
		t.Parallel()
	}
	fake := fakellm.StartOpenAI(t, fakellm.Rules())
	s := newSandbox(t)
	s.env["OPENAI_API_KEY"] = testKey
	// The notes server's calls are bounded well within the clients' timeout: a call
	// that reaches a killed server fails, one made while it restarts waits for it.
	cfg := s.writeConfig("mcp.json", `{
  "mcpServers": {"clock": `+demoEntry(t, "clock")+`, "notes": `+demoEntry(t, "notes", `"toolTimeout": "10s"`)+`},
  "switchboard": {"model": {"provider": "openai", "name": "test-model", "baseURL": `+jsonString(fake.URL)+`}}
}`)
	p := startServe(t, s, cfg, "", "--store", "memory")
	p.waitHealthy(t)
	pid := p.cmd.Process.Pid

	tr := &http.Transport{MaxIdleConnsPerHost: spec.clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: withToken{tr, p.token}, Timeout: spec.timeout}

	// Warm up with every client (connections, the model client's pool, the runtime's
	// heap), then measure with no connection of ours open.
	warm := runLoad(client, p.url, spec.clients, time.Second)
	for _, kind := range []string{kindClock, kindChat} {
		if warm.failed[kind] > 0 {
			t.Fatalf("warm-up: %d of %d %ss failed: %q\n%s", warm.failed[kind], len(warm.latencies[kind]), kind, warm.errors[kind], p.stderr.String())
		}
	}
	tr.CloseIdleConnections()
	// serve's keep-alive connections to the model: how many its pool holds depends on
	// the moment, so neither count has any. They are closed before every reading, not
	// once: a connection still writing its last answer at one call is idle by a later
	// one (CI failed once with one of serve's connections to the model left open: two
	// goroutines over the start).
	start := settledMetrics(t, p, fake.CloseIdleConnections)

	type killed struct {
		n   int
		err error
	}
	kills := make(chan killed, 1)
	stopKilling := make(chan struct{})
	go func() {
		n, err := killNotesRepeatedly(p, spec, stopKilling)
		kills <- killed{n, err}
	}()
	began := time.Now()
	res := runLoad(client, p.url, spec.clients, spec.duration)
	elapsed := time.Since(began)
	close(stopKilling)
	k := <-kills

	tr.CloseIdleConnections()
	waitNotesReady(t, p)
	// Every connection the load opened is closed, and every turn is over: serve's
	// goroutines go back to where they were (a few may be late to exit: bounded wait).
	var end serveMetrics
	testenv.WaitFor(t, fmt.Sprintf("serve's goroutines back to %d", start.goroutines), 15*time.Second, func() bool {
		fake.CloseIdleConnections()
		end = readServeMetrics(t, p)
		return end.goroutines <= start.goroutines
	})

	total := 0
	var all []time.Duration
	for _, kind := range loadKinds {
		total += len(res.latencies[kind])
		all = append(all, res.latencies[kind]...)
	}
	t.Logf("load: %d clients for %v, notes server killed %d times: %d requests, %.0f requests/s, p50 %v, p99 %v, max %v",
		spec.clients, elapsed.Round(time.Millisecond), k.n, total, float64(total)/elapsed.Seconds(),
		quantile(all, 0.5), quantile(all, 0.99), quantile(all, 1))
	for _, kind := range loadKinds {
		l := res.latencies[kind]
		t.Logf("  %-15s %6d requests, %5d errors, p50 %v, p99 %v, max %v", kind, len(l), res.failed[kind], quantile(l, 0.5), quantile(l, 0.99), quantile(l, 1))
	}
	if len(res.errors[kindNotes]) > 0 {
		t.Logf("  notes call errors (the first few): %q", res.errors[kindNotes])
	}
	t.Logf("serve (pid %d): resident memory %.1f MiB → %.1f MiB, goroutines %d → %d",
		pid, float64(start.rss)/(1<<20), float64(end.rss)/(1<<20), start.goroutines, end.goroutines)

	if k.err != nil {
		t.Errorf("killing the notes server: %v", k.err)
	}
	if k.n == 0 {
		t.Errorf("the notes server was never killed")
	}
	for _, kind := range []string{kindClock, kindChat} {
		if res.failed[kind] > 0 {
			t.Errorf("%d of %d %ss failed (the clock server was never killed): %q", res.failed[kind], len(res.latencies[kind]), kind, res.errors[kind])
		}
		if len(res.latencies[kind]) == 0 {
			t.Errorf("no %s was made", kind)
		}
	}
	for _, kind := range loadKinds {
		if slow := quantile(res.latencies[kind], 1); slow >= spec.timeout {
			t.Errorf("a %s hung past its timeout of %v: %q", kind, spec.timeout, res.errors[kind])
		}
	}
	if long && end.rss > 2*start.rss {
		t.Errorf("serve's resident memory grew from %d to %d bytes", start.rss, end.rss)
	}
	// The notes server is back for good: a call now succeeds.
	if code, body := p.do(t, "POST", "/v1/tools/list_notes/call", `{}`); code != 200 || !strings.Contains(body, `"isError": false`) {
		t.Errorf("a notes call after the load: %d %s", code, body)
	}
	if code := p.stop(t); code != exitOK {
		t.Errorf("exit %d after SIGTERM, want 0\n%s", code, p.stderr.String())
	}
	if t.Failed() {
		t.Logf("serve's log:\n%s", lastLines(p.stderr.String(), 100))
	}
}

// withToken sends the service's token on every request, as its clients do.
type withToken struct {
	http.RoundTripper
	token string
}

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return w.RoundTripper.RoundTrip(r)
}

// runLoad runs `clients` clients against serve at url for d, each making requests one
// after another, and returns what they saw. Each client goes through the kinds in
// turn, from a different one, two clock calls for every notes call and chat
// completion.
func runLoad(client *http.Client, url string, clients int, d time.Duration) *loadResult {
	res := &loadResult{latencies: map[string][]time.Duration{}, errors: map[string][]string{}, failed: map[string]int{}}
	deadline := time.Now().Add(d)
	order := []string{kindClock, kindNotes, kindClock, kindChat}
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := c; time.Now().Before(deadline); i++ {
				kind := order[i%len(order)]
				start := time.Now()
				err := loadRequest(client, url, kind)
				res.add(kind, time.Since(start), err)
			}
		})
	}
	wg.Wait()
	return res
}

// loadRequest makes one request of kind and checks its answer.
func loadRequest(client *http.Client, url, kind string) error {
	var path, body, want string
	switch kind {
	case kindClock:
		path = "/v1/tools/convert_time/call"
		body = `{"arguments": {"time": "2026-01-02T03:04:05Z", "to": "Asia/Tokyo"}}`
		want = `"text": "2026-01-02T12:04:05+09:00`
	case kindNotes:
		path, body, want = "/v1/tools/list_notes/call", `{}`, `"isError": false`
	case kindChat:
		path = "/v1/chat/completions"
		body = `{"model": "test-model", "messages": [{"role": "user", "content": "call convert_time {\"time\": \"2026-01-02T03:04:05Z\", \"to\": \"Asia/Tokyo\"}"}]}`
		want = `"content": "convert_time: 2026-01-02T12:04:05+09:00`
	}
	res, err := client.Post(url+path, "application/json", strings.NewReader(body))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if res.StatusCode != http.StatusOK || !bytes.Contains(data, []byte(want)) {
		// A tool's failure is a 200 whose "text" says it: that is the message.
		var answer struct{ Text string }
		if json.Unmarshal(data, &answer) == nil && answer.Text != "" {
			return fmt.Errorf("%d %s", res.StatusCode, answer.Text)
		}
		return fmt.Errorf("%d %s", res.StatusCode, strings.Join(strings.Fields(string(data)), " "))
	}
	return nil
}

// killNotesRepeatedly SIGKILLs serve's notes server every spec.killEvery until stop
// (once, a second in, when killEvery is 0), each time once the previous one has been
// replaced by a ready server. It returns the number of kills, and why it stopped
// killing before stop, if it did.
func killNotesRepeatedly(p *serveProc, spec loadSpec, stop <-chan struct{}) (kills int, err error) {
	every := spec.killEvery
	if every == 0 {
		every = time.Second
	}
	last := 0
	for {
		select {
		case <-stop:
			return kills, nil
		case <-time.After(every):
		}
		if spec.killEvery == 0 && kills == 1 {
			continue // wait for stop
		}
		pid, err := notesPID(p, last, 10*time.Second)
		if err != nil {
			return kills, err
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return kills, fmt.Errorf("kill %d: %w", pid, err)
		}
		kills++
		last = pid
	}
}

// notesPID finds the process of serve's notes server other than not, waiting up to d
// for one to run and for the server to be ready.
func notesPID(p *serveProc, not int, d time.Duration) (int, error) {
	deadline := time.Now().Add(d)
	for {
		for _, line := range marked(p.marker) {
			pidText, cmdline, _ := strings.Cut(line, ": ")
			pid, _ := strconv.Atoi(pidText)
			if strings.HasSuffix(cmdline, "demo-server notes") && pid != not && pid != p.cmd.Process.Pid && notesReady(p) {
				return pid, nil
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("no ready notes server other than pid %d after %v: %q", not, d, marked(p.marker))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func notesReady(p *serveProc) bool {
	// No keep-alive: a connection left open would be one more goroutine in serve.
	client := &http.Client{Transport: withToken{&http.Transport{DisableKeepAlives: true}, p.token}, Timeout: 10 * time.Second}
	res, err := client.Get(p.url + "/v1/servers/notes")
	if err != nil {
		return false
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode == 200 && bytes.Contains(b, []byte(`"state": "ready"`))
}

func waitNotesReady(t *testing.T, p *serveProc) {
	t.Helper()
	testenv.WaitFor(t, "the notes server ready again", 15*time.Second, func() bool { return notesReady(p) })
}

// serveMetrics are serve's own figures, from its /metrics.
type serveMetrics struct {
	goroutines int
	rss        int64
}

// readServeMetrics reads go_goroutines and process_resident_memory_bytes from serve's
// /metrics, on a connection closed afterwards (it would count as a goroutine).
func readServeMetrics(t *testing.T, p *serveProc) serveMetrics {
	t.Helper()
	code, body := p.do(t, "GET", "/metrics", "")
	if code != 200 {
		t.Fatalf("GET /metrics: %d %s", code, body)
	}
	var m serveMetrics
	found := 0
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(value, 64)
		switch {
		case err != nil:
		case name == "go_goroutines":
			m.goroutines = int(f)
			found++
		case name == "process_resident_memory_bytes":
			m.rss = int64(f)
			found++
		}
	}
	if found != 2 {
		t.Fatalf("GET /metrics lacks go_goroutines or process_resident_memory_bytes:\n%s", body)
	}
	return m
}

// settledMetrics reads serve's metrics once the goroutine count has stopped falling
// (connections closed a moment ago are still being torn down): the lowest of readings
// taken until three in a row do not go lower, within 10 s. quiet runs before each
// reading.
func settledMetrics(t *testing.T, p *serveProc, quiet func()) serveMetrics {
	t.Helper()
	quiet()
	best := readServeMetrics(t, p)
	same := 0
	for deadline := time.Now().Add(10 * time.Second); same < 3 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		quiet()
		m := readServeMetrics(t, p)
		if m.goroutines < best.goroutines {
			best, same = m, 0
		} else {
			same++
		}
	}
	return best
}

// quantile is the q-th quantile of ds (nearest rank), rounded for reading.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	d := s[min(len(s)-1, int(q*float64(len(s))))]
	return d.Round(10 * time.Microsecond)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

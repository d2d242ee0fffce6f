package gateway_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/gateway"
	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// Results pass through the gateway with the fields their server sent, and no
// other: the SDK's result types have fields without omitempty (a 2026-07-28
// resources/read's "ttlMs", "cacheScope"), which a 2025-11-25 client must not get.
// Compared at the JSON level: each result of the gateway against the same request
// sent to server-everything directly (with the capabilities the gateway gives it),
// by the set of key paths (array positions dropped).
func TestResultsCarryOnlyWhatTheServerSent(t *testing.T) {
	t.Parallel()
	ev := everything(t)
	_, url := proxyURL(t, ev)

	direct := startRawStdio(t, ev.Command)
	direct.call(t, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"elicitation":{"form":{},"url":{}},"roots":{"listChanged":true}},"clientInfo":{"name":"wire-test","version":"1"}}`)
	direct.notify(t, "notifications/initialized")
	gw := newRawHTTP(t, url)

	var uri string
	for _, req := range []struct{ method, params string }{
		{"tools/list", `{}`},
		{"tools/call", `{"name":"echo","arguments":{"message":"hi"}}`},
		{"prompts/list", `{}`},
		{"prompts/get", `{"name":"simple-prompt"}`},
		{"resources/list", `{}`},
		{"resources/read", ``}, // the first resource listed
		{"resources/templates/list", `{}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"completable-prompt"},"argument":{"name":"department","value":"Eng"}}`},
	} {
		params := req.params
		if req.method == "resources/read" {
			params = fmt.Sprintf(`{"uri":%q}`, uri)
		}
		want := keyPaths(direct.call(t, req.method, params))
		res := gw.call(t, req.method, params)
		if req.method == "resources/list" {
			var l struct {
				Resources []struct{ URI string } `json:"resources"`
			}
			if err := json.Unmarshal(res, &l); err != nil || len(l.Resources) == 0 {
				t.Fatalf("resources/list through the gateway: %v %s", err, res)
			}
			uri = l.Resources[0].URI
		}
		var extra []string
		for _, p := range keyPaths(res) {
			if !slices.Contains(want, p) {
				extra = append(extra, p)
			}
		}
		if len(extra) > 0 {
			t.Errorf("%s: the gateway's result has %v, which the server did not send\ngateway: %.600s", req.method, extra, res)
		}
	}

	// A 2026-07-28 client (stateless over HTTP; the SDK's client falls back to
	// 2025-11-25 with sessions) gets the cache fields its version requires, with a
	// valid scope, though the server (of 2025-11-25) sent none.
	_, url = proxyURLWith(t, proxyOpts{http: &gateway.HTTPOptions{Stateless: true}}, ev)
	c := connectProxyClientVersion(t, url, "")
	if v := c.cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s, want 2026-07-28", v)
	}
	read, err := c.cs.ReadResource(ctx15(t), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if read.CacheScope != "public" && read.CacheScope != "private" {
		t.Errorf("resources/read of a 2026-07-28 client: cacheScope %q, want public or private", read.CacheScope)
	}
}

// keyPaths lists the paths of every object member in a JSON value, array
// positions written as [].
func keyPaths(raw json.RawMessage) []string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []string{"<not JSON>"}
	}
	set := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				set[prefix+"."+k] = true
				walk(prefix+"."+k, e)
			}
		case []any:
			for _, e := range v {
				walk(prefix+"[]", e)
			}
		}
	}
	walk("", v)
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// rawStdio speaks JSON-RPC lines to a server process.
type rawStdio struct {
	in     io.WriteCloser
	out    *bufio.Scanner
	nextID int
}

func startRawStdio(t *testing.T, command string) *rawStdio {
	t.Helper()
	cmd := exec.Command(command)
	cmd.Stderr = &testenv.Buffer{}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	return &rawStdio{in: in, out: sc}
}

func (r *rawStdio) notify(t *testing.T, method string) {
	t.Helper()
	if _, err := fmt.Fprintf(r.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method); err != nil {
		t.Fatal(err)
	}
}

// call sends a request and returns its result, skipping the server's own
// notifications and requests (left unanswered).
func (r *rawStdio) call(t *testing.T, method, params string) json.RawMessage {
	t.Helper()
	r.nextID++
	if _, err := fmt.Fprintf(r.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", r.nextID, method, params); err != nil {
		t.Fatal(err)
	}
	for r.out.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(r.out.Bytes(), &m) != nil || m.Method != "" || string(m.ID) != fmt.Sprint(r.nextID) {
			continue
		}
		if m.Error != nil {
			t.Fatalf("%s directly: error %s", method, m.Error)
		}
		return m.Result
	}
	t.Fatalf("%s directly: no answer (%v)", method, r.out.Err())
	return nil
}

// rawHTTP speaks JSON-RPC to a Streamable HTTP endpoint as a 2025-11-25 client.
type rawHTTP struct {
	url, session string
	nextID       int
	client       *http.Client
}

func newRawHTTP(t *testing.T, url string) *rawHTTP {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	r := &rawHTTP{url: url, client: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
	r.call(t, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire-test","version":"1"}}`)
	r.post(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawHTTP) post(t *testing.T, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("POST", r.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.session != "" {
		req.Header.Set("Mcp-Session-Id", r.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		r.session = id
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// call sends a request and returns its result, from a JSON body or the first
// response on an SSE stream.
func (r *rawHTTP) call(t *testing.T, method, params string) json.RawMessage {
	t.Helper()
	r.nextID++
	resp := r.post(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, r.nextID, method, params))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s through the gateway: %s %s", method, resp.Status, b)
	}
	var msgs [][]byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: ")); ok {
				msgs = append(msgs, bytes.Clone(data))
			}
		}
	} else {
		b, _ := io.ReadAll(resp.Body)
		msgs = append(msgs, b)
	}
	for _, b := range msgs {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(b, &m) != nil || string(m.ID) != fmt.Sprint(r.nextID) {
			continue
		}
		if m.Error != nil {
			t.Fatalf("%s through the gateway: error %s", method, m.Error)
		}
		return m.Result
	}
	t.Fatalf("%s through the gateway: no answer", method)
	return nil
}

package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/api/internal/httpx"
)

// TestSSEWriter: the stream starts with its first event (headers, then the opening
// event), not before; data is JSON, or raw; what cannot be encoded goes out in
// EncodeFailed's form.
func TestSSEWriter(t *testing.T) {
	rec := httptest.NewRecorder()
	sw := httpx.NewSSEWriter(rec)
	sw.Opening = &httpx.SSEEvent{Name: "hello", Data: map[string]int{"n": 1}}
	sw.EncodeFailed = func(name string, err error) (string, any) { return "error", map[string]string{"failed": name} }
	if sw.KeepAlive() != nil || sw.Started() || rec.Body.Len() != 0 {
		t.Fatalf("a keep-alive started the stream: %q", rec.Body)
	}
	_ = sw.Send("a", []int{1})
	_ = sw.SendRaw("", []byte("[DONE]"))
	_ = sw.Send("b", func() {})
	want := "event: hello\ndata: {\"n\":1}\n\nevent: a\ndata: [1]\n\ndata: [DONE]\n\nevent: error\ndata: {\"failed\":\"b\"}\n\n"
	if got := rec.Body.String(); got != want || !sw.Started() || rec.Header().Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream %q (started %v, %q)", got, sw.Started(), rec.Header().Get("Content-Type"))
	}
}

// TestDecodeBody: a body within the limit decodes; past it 413; unknown fields,
// wrong types and trailing data are 400 naming the problem; an empty body is
// refused unless optional.
func TestDecodeBody(t *testing.T) {
	for _, tc := range []struct {
		body     string
		optional bool
		status   int
		want     string
	}{
		{`{"a": 1}`, false, 0, ""},
		{``, true, 0, ""},
		{``, false, 400, "empty request body"},
		{`{"a": "x"}`, false, 400, `"a" is string, want a number`},
		{`{"b": 1}`, false, 400, `unknown field "b"`},
		{`{"a": 1} {}`, false, 400, "data after the object"},
		{`{"a": 1, "pad": "` + strings.Repeat("x", 64) + `"}`, false, 413, "over the limit of 32 bytes"},
	} {
		var v struct {
			A int `json:"a"`
		}
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
		e := httpx.DecodeBody(httptest.NewRecorder(), r, &v, 32, tc.optional)
		switch {
		case tc.status == 0 && e != nil:
			t.Errorf("%q: %v", tc.body, e)
		case tc.status != 0 && (e == nil || e.Status != tc.status || !strings.Contains(e.Message, tc.want)):
			t.Errorf("%q: %+v, want %d with %q", tc.body, e, tc.status, tc.want)
		}
	}
}

// Package otlptest is an OTLP/HTTP trace receiver on loopback for tests: what an
// OpenTelemetry collector's port 4318 does with POST /v1/traces, keeping the spans
// it is sent so that a test reads them.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one span received, its ids in hex.
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Kind                      string // "SPAN_KIND_CLIENT", …
	// Attributes are the span's, their values as strings ("12", "true").
	Attributes map[string]string
	// Service is the service.name of the resource the span came with.
	Service string
	// Error: the span's status is an error.
	Error bool
}

// Receiver is an OTLP/HTTP endpoint: give its URL to OTEL_EXPORTER_OTLP_ENDPOINT.
type Receiver struct {
	URL string

	mu    sync.Mutex
	spans []Span
	posts int
}

// Start serves a Receiver on a free loopback port until the test ends.
func Start(tb testing.TB) *Receiver {
	tb.Helper()
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	tb.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

// Spans are the spans received so far, in the order they came.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Posts is the number of export requests received.
func (r *Receiver) Posts() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.posts
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, "only POST /v1/traces", http.StatusNotFound)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var got []Span
	for _, rs := range msg.GetResourceSpans() {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				got = append(got, Span{
					TraceID:    hex.EncodeToString(s.GetTraceId()),
					SpanID:     hex.EncodeToString(s.GetSpanId()),
					ParentID:   hex.EncodeToString(s.GetParentSpanId()),
					Name:       s.GetName(),
					Kind:       s.GetKind().String(),
					Attributes: attrs(s.GetAttributes()),
					Service:    service,
					Error:      s.GetStatus().GetCode().String() == "STATUS_CODE_ERROR",
				})
			}
		}
	}
	r.mu.Lock()
	r.spans = append(r.spans, got...)
	r.posts++
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = value(kv.GetValue())
	}
	return m
}

func value(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, value(e))
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return ""
}

// Trace are the spans of trace id, by name (the last one of a name wins).
func Trace(spans []Span, id string) map[string]Span {
	m := map[string]Span{}
	for _, s := range spans {
		if s.TraceID == id {
			m[s.Name] = s
		}
	}
	return m
}

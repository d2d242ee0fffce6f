package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
	"github.com/switchboard-mcp/switchboard/llm"
	"github.com/switchboard-mcp/switchboard/session"
)

// Errorf is an error of the API with its status, code and message.
func Errorf(status int, code, format string, args ...any) *apiwire.Error {
	return &apiwire.Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// WriteJSON writes v indented by two spaces, as the CLI's --json output, so that
// GET /v1/tools and `switchboard tools --format` print the same bytes.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		fmt.Fprintf(&buf, `{"error": {"code": %q, "message": %s}}`+"\n", apiwire.CodeInternal, strconv.Quote("encoding the response: "+err.Error()))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// DecodeBody reads the request's JSON object into v, at most limit bytes of it. An
// empty body leaves v as it is when optional. Every problem is an *apiwire.Error:
// 413 past the limit, 408 for a body too slow to come, 400 for malformed JSON
// (naming the problem and its byte offset), a value of the wrong type, an unknown
// field, or anything after the object.
func DecodeBody(w http.ResponseWriter, r *http.Request, v any, limit int64, optional bool) *apiwire.Error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return Errorf(http.StatusRequestEntityTooLarge, apiwire.CodeTooLarge, "request body over the limit of %d bytes", tooBig.Limit)
		}
		var slow *httpguard.BodyTimeoutError
		if errors.As(err, &slow) {
			// What is left of the body is not waited for: the connection closes.
			w.Header().Set("Connection", "close")
			return Errorf(http.StatusRequestTimeout, apiwire.CodeTimeout, "%v: send it right after the headers", slow)
		}
		return Errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "reading the request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil
		}
		return Errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "empty request body: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			// Offset counts the bytes read, the bad one included: name the bad one's.
			return Errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "malformed JSON at offset %d: %s", max(syn.Offset-1, 0), syn.Error())
		case errors.Is(err, io.ErrUnexpectedEOF):
			return Errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "malformed JSON at offset %d: unexpected end of input", len(data))
		case errors.As(err, &typ):
			where := "the body"
			if typ.Field != "" {
				where = strconv.Quote(typ.Field)
			}
			return Errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "JSON at offset %d: %s is %s, want %s", typ.Offset, where, typ.Value, JSONType(typ.Type.Kind().String()))
		}
		// Unknown fields, and what the decoder reports in words only.
		return Errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "JSON at offset %d: %s", dec.InputOffset(), TrimJSONPrefix(err.Error()))
	}
	off := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[off:], " \t\r\n"); len(rest) > 0 {
		return Errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "malformed JSON at offset %d: data after the object", len(data)-len(rest))
	}
	return nil
}

// JSONType names a Go kind as JSON does.
func JSONType(kind string) string {
	switch kind {
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "uint", "uint64", "float64", "float32":
		return "a number"
	}
	return kind
}

// TrimJSONPrefix is an encoding/json error's message without its "json: ".
func TrimJSONPrefix(s string) string {
	if len(s) > 6 && s[:6] == "json: " {
		return s[6:]
	}
	return s
}

// TurnError maps a failed turn to its status: the session missing (404) or held by
// another turn (409), the model failing (502), the service shutting down (503).
func TurnError(err error) *apiwire.Error {
	var le *llm.Error
	switch {
	case errors.Is(err, session.ErrNotFound):
		return Errorf(http.StatusNotFound, apiwire.CodeNotFound, "%v", err)
	case errors.Is(err, session.ErrBusy):
		return Errorf(http.StatusConflict, apiwire.CodeBusy, "%v", err)
	case errors.As(err, &le):
		return Errorf(http.StatusBadGateway, apiwire.CodeModelFailed, "%v", err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return Errorf(http.StatusServiceUnavailable, apiwire.CodeCancelled, "the turn was cancelled: %v", err)
	}
	return Errorf(http.StatusInternalServerError, apiwire.CodeTurnFailed, "%v", err)
}

type logKey struct{}

// WithLogger is ctx with the logger of its request (whose lines carry the request id).
func WithLogger(ctx context.Context, log *slog.Logger) context.Context {
	return context.WithValue(ctx, logKey{}, log)
}

// Logger is the logger of the request that ctx belongs to (WithLogger), or def.
func Logger(ctx context.Context, def *slog.Logger) *slog.Logger {
	if log, ok := ctx.Value(logKey{}).(*slog.Logger); ok {
		return log
	}
	return def
}

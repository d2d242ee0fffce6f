package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/internal/httpguard"
)

// errorBody is every error's JSON: {"error": {"code", "message"}}, with the names
// closest to an unknown tool's when there are some. apiError is one error, with the
// status it is written with. Both are the wire package's, which the CLI decodes.
type (
	errorBody = apiwire.ErrorBody
	apiError  = apiwire.Error
)

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

func writeError(w http.ResponseWriter, r *http.Request, status int, code, message string) {
	writeAPIError(w, r, &apiError{Status: status, Code: code, Message: message})
}

// writeAPIError writes e in the form the request's route answers in: the API's, or
// OpenAI's or Anthropic's at the endpoints compatible with theirs, or JSON-RPC's at
// the MCP gateway's.
func writeAPIError(w http.ResponseWriter, r *http.Request, e *apiError) {
	form := apiErrors
	if rt := routeOf(r); rt != nil {
		form = rt.errors
	}
	switch form {
	case openAIErrors:
		writeOpenAIError(w, e)
	case mcpErrors:
		httpguard.JSONRPCError(w, e.Status, e.Message)
	case anthropicErrors:
		writeAnthropicError(w, e)
	default:
		writeJSON(w, e.Status, errorBody{Error: *e})
	}
}

// writeJSON writes v indented by two spaces, as the CLI's --json output, so that
// GET /v1/tools and `switchboard tools --format` print the same bytes.
func writeJSON(w http.ResponseWriter, status int, v any) {
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

// decodeBody reads the request's JSON object into v. An empty body leaves v as it is
// when optional. Every problem is an *apiError: 413 past the size limit, 400 for
// malformed JSON (naming the problem and its byte offset), a value of the wrong type,
// an unknown field, or anything after the object.
func (s *Server) decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) *apiError {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxRequestBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, apiwire.CodeTooLarge, "request body over the limit of %d bytes", tooBig.Limit)
		}
		var slow *httpguard.BodyTimeoutError
		if errors.As(err, &slow) {
			// What is left of the body is not waited for: the connection closes.
			w.Header().Set("Connection", "close")
			return errorf(http.StatusRequestTimeout, apiwire.CodeTimeout, "%v: send it right after the headers", slow)
		}
		return errorf(http.StatusBadRequest, apiwire.CodeBadRequest, "reading the request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if optional {
			return nil
		}
		return errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "empty request body: want a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			// Offset counts the bytes read, the bad one included: name the bad one's.
			return errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "malformed JSON at offset %d: %s", max(syn.Offset-1, 0), syn.Error())
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "malformed JSON at offset %d: unexpected end of input", len(data))
		case errors.As(err, &typ):
			where := "the body"
			if typ.Field != "" {
				where = strconv.Quote(typ.Field)
			}
			return errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "JSON at offset %d: %s is %s, want %s", typ.Offset, where, typ.Value, jsonType(typ.Type.Kind().String()))
		}
		// Unknown fields, and what the decoder reports in words only.
		return errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "JSON at offset %d: %s", dec.InputOffset(), trimJSONPrefix(err.Error()))
	}
	off := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[off:], " \t\r\n"); len(rest) > 0 {
		return errorf(http.StatusBadRequest, apiwire.CodeBadJSON, "malformed JSON at offset %d: data after the object", len(data)-len(rest))
	}
	return nil
}

// jsonType names a Go kind as JSON does.
func jsonType(kind string) string {
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

func trimJSONPrefix(s string) string {
	if len(s) > 6 && s[:6] == "json: " {
		return s[6:]
	}
	return s
}

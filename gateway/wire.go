package gateway

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's result types carry the fields of every protocol version, some without
// omitempty: "ttlMs" and "cacheScope" (2026-07-28, SEP-2549) go out as 0 and ""
// to any client unless removed. A client gets only what its version defines.

// protocol2026 is the first protocol version whose results carry cache fields (and
// whose clients get a server's requests as input requests, see mrtr_clients.go).
const protocol2026 = "2026-07-28"

// drop2026Fields is a receiving middleware that drops from the result of a request
// of an older protocol the fields only 2026-07-28 defines. The SDK decides a
// request's protocol version as here: by the version in its _meta (SEP-2575).
func drop2026Fields(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || res == nil || reflect.ValueOf(res).IsNil() || requestIs2026(req) {
			return res, err
		}
		if _, ok := res.(mcp.CacheableResult); ok {
			return withoutFields{res, []string{"ttlMs", "cacheScope"}}, nil
		}
		return res, nil
	}
}

// requestIs2026 reports whether req follows the 2026-07-28 protocol (or a later one).
func requestIs2026(req mcp.Request) bool {
	p := req.GetParams()
	if p == nil || reflect.ValueOf(p).IsNil() {
		return false
	}
	v, _ := p.GetMeta()[mcp.MetaKeyProtocolVersion].(string)
	return v >= protocol2026
}

// withoutFields is a result that marshals as its embedded one without the named
// top-level members.
type withoutFields struct {
	mcp.Result
	drop []string
}

func (w withoutFields) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(w.Result)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range w.drop {
		delete(m, k)
	}
	return json.Marshal(m)
}

// withResultType is res with the "resultType" that 2026-07-28 requires of every
// result ("complete", or "input_required" when it carries input requests), as the
// SDK's own resources/read handler sets it: the gateway answers reads before that
// handler (the middleware in clienttoserver.go), and the SDK keeps the field
// unexported, settable only by decoding.
func withResultType(res *mcp.ReadResourceResult) (*mcp.ReadResourceResult, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["resultType"] = json.RawMessage(`"complete"`)
	if res.InputRequests != nil {
		m["resultType"] = json.RawMessage(`"input_required"`)
	}
	if b, err = json.Marshal(m); err != nil {
		return nil, err
	}
	var typed mcp.ReadResourceResult
	if err := json.Unmarshal(b, &typed); err != nil {
		return nil, err
	}
	return &typed, nil
}

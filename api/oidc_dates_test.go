package api_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/api"
)

// TestOIDCStringDates: a token of the provider whose "nbf" (or "exp", "iat") is a
// string is refused over HTTP, 401 naming the claim: a string "nbf" an hour ahead
// was skipped, and the token taken an hour early.
func TestOIDCStringDates(t *testing.T) {
	t.Parallel()
	e, idp := startOIDC(t, nil, api.Options{})
	later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	for _, claim := range []string{"nbf", "exp", "iat"} {
		tok := idp.Mint(map[string]any{claim: later})
		e.do("GET", "/v1/me", nil, "Authorization: Bearer "+tok).want(t, 401, `"code": "unauthorized"`, `\"`+claim+`\" is not a number`)
	}
	e.do("GET", "/v1/me", nil, "Authorization: Bearer "+idp.Mint(nil)).want(t, 200, `"subject"`)
}

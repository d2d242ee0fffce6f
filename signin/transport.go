package signin

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// flowTransport is the HTTP transport of one exchange with an authorization server.
// It does two things that the libraries it serves leave to their caller:
//
//   - The SDK's authorization code handler registers a client (RFC 7591) on every
//     flow and keeps the result to itself. flowTransport sees the registration
//     request go by: it answers it with the stored registration when there is one
//     (reuse), so that the authorization server sees one registration however many
//     sign-ins follow ("other clients have shipped that bug"), and hands a new
//     registration to registered, to be stored before the person even signs in.
//   - x/oauth2's refresh grant sends no resource: the MCP spec wants it on every
//     token request (RFC 8707: "MUST include the resource parameter in ... token
//     requests"). flowTransport adds it to a form posted to tokenURL that lacks it.
type flowTransport struct {
	base http.RoundTripper
	// registration is the registration endpoint; reuse, when set, the client that
	// answers it; registered is told of a new one.
	registration string
	reuse        *Client
	registered   func(*oauthex.ClientRegistrationResponse)
	// tokenURL and resource: the token endpoint and the resource to name there.
	tokenURL, resource string
}

func (t *flowTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	switch {
	case r.Method == http.MethodPost && t.registration != "" && sameURL(r.URL, t.registration):
		if t.reuse != nil {
			if r.Body != nil {
				r.Body.Close()
			}
			return t.replay(r), nil
		}
		return t.register(r)
	case r.Method == http.MethodPost && t.resource != "" && t.tokenURL != "" && sameURL(r.URL, t.tokenURL):
		if nr, err := withResource(r, t.resource); err == nil {
			r = nr
		}
	}
	return t.base.RoundTrip(r)
}

// replay answers a registration request with the stored registration, as the
// authorization server answered it once (RFC 7591 §3.2.1).
func (t *flowTransport) replay(r *http.Request) *http.Response {
	c := t.reuse
	resp := oauthex.ClientRegistrationResponse{
		ClientRegistrationMetadata: oauthex.ClientRegistrationMetadata{RedirectURIs: []string{c.RedirectURI},
			TokenEndpointAuthMethod: c.AuthMethod},
		ClientID: c.ID, ClientSecret: c.Secret, ClientSecretExpiresAt: c.SecretExpiresAt,
	}
	body, _ := json.Marshal(&resp)
	return &http.Response{StatusCode: http.StatusCreated, Status: "201 Created", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)), Request: r}
}

// register passes a registration request on and reads the new registration from
// the answer, which goes on unchanged to the SDK.
func (t *flowTransport) register(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || (resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated) {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var reg oauthex.ClientRegistrationResponse
	if json.Unmarshal(body, &reg) == nil && reg.ClientID != "" && t.registered != nil {
		t.registered(&reg)
	}
	return resp, nil
}

// withResource returns r with resource added to its form body when absent.
func withResource(r *http.Request, resource string) (*http.Request, error) {
	if r.Body == nil || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return r, nil
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Has("resource") {
		nr := r.Clone(r.Context())
		nr.Body = io.NopCloser(bytes.NewReader(body))
		return nr, nil
	}
	form.Set("resource", resource)
	enc := form.Encode()
	nr := r.Clone(r.Context())
	nr.Body = io.NopCloser(strings.NewReader(enc))
	nr.ContentLength = int64(len(enc))
	nr.Header.Set("Content-Length", strconv.Itoa(len(enc)))
	nr.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(enc)), nil }
	return nr, nil
}

// sameURL compares a request's URL with an endpoint's, without query or fragment.
func sameURL(u *url.URL, endpoint string) bool {
	e, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Scheme, e.Scheme) && strings.EqualFold(u.Host, e.Host) &&
		strings.TrimSuffix(u.Path, "/") == strings.TrimSuffix(e.Path, "/")
}

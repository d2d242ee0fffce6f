package signin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Forgot is what Forget did.
type Forgot struct {
	// Records is how many records (registrations with their tokens) were forgotten.
	Records int
	// Revoked is how many tokens the authorization servers took back; Errors says
	// why others were not (forgotten here all the same).
	Revoked int
	Errors  []string
}

// Forget forgets the server's sign-ins: tokens and registrations, in the store and
// in memory. With revoke, it first asks each authorization server that offers
// revocation (RFC 7009) to take its tokens back, the refresh token first (which
// takes the access tokens issued with it along, at most servers).
func (h *Handler) Forget(ctx context.Context, revoke bool) (Forgot, error) {
	var f Forgot
	recs, err := h.hs.store.Load(ctx, h.srv.URL, h.subject)
	if err != nil {
		return f, err
	}
	for _, rec := range recs {
		f.Records++
		if !revoke || rec.Token == nil || rec.RevocationURL == "" {
			continue
		}
		for _, t := range []struct{ token, hint string }{{rec.Token.RefreshToken, "refresh_token"}, {rec.Token.AccessToken, "access_token"}} {
			if t.token == "" {
				continue
			}
			if err := h.revoke(ctx, rec, t.token, t.hint); err != nil {
				f.Errors = append(f.Errors, h.hs.red.String(err.Error()))
				continue
			}
			f.Revoked++
		}
	}
	if err := h.hs.store.Delete(ctx, h.srv.URL, h.subject); err != nil {
		return f, err
	}
	h.mu.Lock()
	h.rec, h.challenge, h.refreshed, h.loaded = nil, nil, "", true
	h.mu.Unlock()
	h.log.Info("sign-in forgotten", "records", f.Records, "revoked", f.Revoked)
	return f, nil
}

// revoke asks rec's authorization server to revoke token (RFC 7009 §2.1: a form
// POST of token and token_type_hint, the client authenticated as at the token
// endpoint). Neither the MCP SDK nor x/oauth2 has revocation.
func (h *Handler) revoke(ctx context.Context, rec *Record, token, hint string) error {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	secret := h.clientSecret(rec)
	basic := rec.Client.AuthMethod == "client_secret_basic" || (rec.Client.AuthMethod == "" && secret != "")
	if !basic {
		form.Set("client_id", rec.Client.ID)
		if secret != "" {
			form.Set("client_secret", secret)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevocationURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		req.SetBasicAuth(url.QueryEscape(rec.Client.ID), url.QueryEscape(secret))
	}
	resp, err := h.hs.client(nil).Do(req)
	if err != nil {
		// Said in words of Switchboard's: a transport's error may quote the answer
		// (failure.go).
		h.log.Warn("revoking a token failed", "err", err)
		return fmt.Errorf("revoking the %s at %s: %s", strings.ReplaceAll(hint, "_", " "), rec.RevocationURL, reach(err))
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	// "The authorization server responds with HTTP status code 200 if the token has
	// been revoked successfully or if the client submitted an invalid token."
	if resp.StatusCode != http.StatusOK {
		// The status code alone: its reason phrase is the server's own text.
		return fmt.Errorf("revoking the %s at %s: HTTP %d", strings.ReplaceAll(hint, "_", " "), rec.RevocationURL, resp.StatusCode)
	}
	return nil
}

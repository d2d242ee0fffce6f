package identity

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Why keySet refuses a signature (sigResult).
var (
	errUnknownKey   = errors.New("no key of the provider has the token's key id")
	errBadSignature = errors.New("the signature does not verify")
)

// sigResult is where keySet tells Verifier what became of a token's signature:
// go-oidc passes its error on as text only.
type sigResult struct{ err error }

type sigResultKey struct{}

// algorithms are the signatures taken: RS256 (every provider's) and ES256.
var algorithms = []jose.SignatureAlgorithm{jose.RS256, jose.ES256}

func parseJWS(token string) (*jose.JSONWebSignature, error) {
	return jose.ParseSigned(token, algorithms)
}

// keySet is the provider's keys (oidc.KeySet), kept in memory. A token whose key id
// is not among them makes it fetch them again, as OpenID Connect Core 10.1.1 has a
// verifier do for a rotation, but at most once per refresh: go-oidc's RemoteKeySet
// fetches again for every such token (it only merges concurrent fetches), so a
// flood of forged tokens would be a flood of fetches at the provider. The fetch runs
// in the request that needs it (no goroutine); one at a time.
type keySet struct {
	url     string
	client  *http.Client
	refresh time.Duration

	fetching chan struct{} // holds a token while a fetch runs

	mu   sync.RWMutex
	keys []jose.JSONWebKey
	next time.Time // no fetch for an unknown key before then
}

func newKeySet(url string, client *http.Client, refresh time.Duration) *keySet {
	return &keySet{url: url, client: client, refresh: refresh, fetching: make(chan struct{}, 1)}
}

// VerifySignature is the token's payload if one of the provider's keys signed it.
// go-oidc has checked the algorithm already.
func (k *keySet) VerifySignature(ctx context.Context, token string) ([]byte, error) {
	payload, err := k.verify(ctx, token)
	if res, ok := ctx.Value(sigResultKey{}).(*sigResult); ok {
		res.err = err
	}
	return payload, err
}

func (k *keySet) verify(ctx context.Context, token string) ([]byte, error) {
	jws, err := parseJWS(token)
	if err != nil {
		return nil, err
	}
	kid := jws.Signatures[0].Header.KeyID
	payload, err := k.verifyWith(jws, kid)
	if !errors.Is(err, errUnknownKey) {
		return payload, err
	}
	if err := k.refetch(ctx, kid); err != nil {
		return nil, err
	}
	return k.verifyWith(jws, kid)
}

// verifyWith verifies jws with the keys of id kid (all, when kid is ""):
// errUnknownKey when there are none (or none verifies a token without kid).
func (k *keySet) verifyWith(jws *jose.JSONWebSignature, kid string) ([]byte, error) {
	k.mu.RLock()
	keys := k.keys
	k.mu.RUnlock()
	found := false
	for _, key := range keys {
		if kid != "" && key.KeyID != kid {
			continue
		}
		found = true
		if payload, err := jws.Verify(&key); err == nil {
			return payload, nil
		}
	}
	if !found || kid == "" {
		return nil, errUnknownKey
	}
	return nil, errBadSignature
}

// refetch fetches the keys again for a token of key id kid, unless another request
// has fetched them with that key since, or the last refetch was less than refresh
// ago (errUnknownKey then).
func (k *keySet) refetch(ctx context.Context, kid string) error {
	select {
	case k.fetching <- struct{}{}:
		defer func() { <-k.fetching }()
	case <-ctx.Done():
		return errUnknownKey
	}
	k.mu.RLock()
	known := kid != "" && k.has(kid)
	wait := time.Now().Before(k.next)
	k.mu.RUnlock()
	if known {
		return nil
	}
	if wait {
		return errUnknownKey
	}
	k.mu.Lock()
	k.next = time.Now().Add(k.refresh)
	k.mu.Unlock()
	if err := k.fetch(ctx); err != nil {
		return fmt.Errorf("%w (fetching the keys again: %v)", errUnknownKey, err)
	}
	return nil
}

// has reports whether a key of id kid is known; k.mu held.
func (k *keySet) has(kid string) bool {
	for _, key := range k.keys {
		if key.KeyID == kid {
			return true
		}
	}
	return false
}

// fetch gets the key set at k.url, and keeps its signing keys.
func (k *keySet) fetch(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return fmt.Errorf("its jwks_uri %s: %w", k.url, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := k.client.Do(req)
	if err != nil {
		return fmt.Errorf("fetching its keys (jwks_uri): %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("fetching its keys at %s: %s", k.url, res.Status)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<20)).Decode(&set); err != nil {
		return fmt.Errorf("its keys at %s: not a JSON Web Key Set: %w", k.url, err)
	}
	var keys []jose.JSONWebKey
	for _, raw := range set.Keys {
		// A key of a type go-jose does not know is skipped, not the whole set.
		var key jose.JSONWebKey
		if json.Unmarshal(raw, &key) == nil && (key.Use == "" || key.Use == "sig") {
			keys = append(keys, key)
		}
	}
	k.mu.Lock()
	k.keys = keys
	k.mu.Unlock()
	return nil
}

package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/switchboard-mcp/switchboard/apiwire"
	"github.com/switchboard-mcp/switchboard/identity"
	"github.com/switchboard-mcp/switchboard/session"
)

// Application keys: bearer tokens an admin makes for a program (POST /v1/keys), each
// with exactly the profiles it may reach. A key is
//
//	sbk_<id>_<secret>
//
// with a random 16-hex-digit id and a random 256-bit secret (64 hex digits). The
// session store keeps the key's SHA-256, never the key: a request's key is looked up
// by its id and its hash compared in constant time, in the store each time, so that
// a key revoked on one replica is refused by every replica on its next request.
//
// A key's request is the person identity.Person{Subject: "key:<id>", Name: the key's
// name, KeyID: id, Profiles: its profiles}, never an admin: what it creates (a
// session) is the key's own, and its calls are audited under that subject.

// keySubjectPrefix begins the subject of a key's person.
const keySubjectPrefix = "key:"

// keyTouchEvery is how stale a key's last use may be before a request writes it
// again: not one write per request.
const keyTouchEvery = time.Minute

// maxKeyName bounds a key's name (a label on a page).
const maxKeyName = 100

// errUnknownKey is the one answer to a key that is not one of this service's, or is
// revoked, or whose secret is wrong: which of those is nobody's business.
var errUnknownKey = errors.New("unknown or revoked application key")

// keyStore is the store of the application keys: the session store's.
func (s *Server) keyStore() (session.KeyStore, bool) {
	if s.opts.Sessions == nil {
		return nil, false
	}
	return s.opts.Sessions.Store(), true
}

// keyPerson is the person of application key tok (it starts with KeyPrefix), or why
// it is refused (a 401's message, never quoting the key).
func (s *Server) keyPerson(ctx context.Context, tok string) (identity.Person, error) {
	id, _, ok := strings.Cut(strings.TrimPrefix(tok, apiwire.KeyPrefix), "_")
	if !ok || id == "" {
		return identity.Person{}, errUnknownKey
	}
	store, ok := s.keyStore()
	if !ok {
		return identity.Person{}, errors.New("this service keeps no application keys (it has no session store)")
	}
	k, err := store.Key(ctx, id)
	if errors.Is(err, session.ErrKeyNotFound) {
		return identity.Person{}, errUnknownKey
	}
	if err != nil {
		s.logOf(ctx).Error("application key not checked", "key_id", id, "error", err)
		return identity.Person{}, errors.New("the application key could not be checked: the key store failed (see the service's log)")
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(sum[:], k.Hash) != 1 {
		return identity.Person{}, errUnknownKey
	}
	now := time.Now()
	if k.Expired(now) {
		return identity.Person{}, fmt.Errorf("the application key %s expired at %s", id, k.Expires.UTC().Format(time.RFC3339))
	}
	if now.Sub(k.LastUsed) >= keyTouchEvery {
		if err := store.TouchKey(ctx, id, now); err != nil && !errors.Is(err, session.ErrKeyNotFound) {
			s.logOf(ctx).Warn("application key's last use not recorded", "key_id", id, "error", err)
		}
	}
	return identity.Person{Subject: keySubjectPrefix + id, Name: k.Name, KeyID: id, Profiles: k.Profiles}, nil
}

// checksTokens reports whether requests need a token at all: without one (a loopback
// service with no token), an application key would change nothing.
func (s *Server) checksTokens() bool {
	return s.opts.Token != "" || s.opts.Identify != nil
}

// createKey answers POST /v1/keys (admins): {"name", "profiles", "expiresIn"} → 201
// with the key, shown this once.
func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	store, ok := s.keyStore()
	if !ok {
		writeError(w, r, http.StatusServiceUnavailable, apiwire.CodeNoSessions, "this service keeps no application keys: they are kept in the session store, and it has none")
		return
	}
	if !s.checksTokens() {
		writeError(w, r, http.StatusNotImplemented, apiwire.CodeNotSupported, "this service takes no tokens (serve --no-token): an application key would change nothing")
		return
	}
	var body apiwire.KeyRequest
	if e := s.decodeBody(w, r, &body, false); e != nil {
		writeAPIError(w, r, e)
		return
	}
	expires, msg := s.checkKeyRequest(&body, time.Now())
	if msg != "" {
		writeError(w, r, http.StatusBadRequest, apiwire.CodeBadRequest, msg)
		return
	}
	var id [8]byte
	var secret [32]byte
	_, _ = rand.Read(id[:])
	_, _ = rand.Read(secret[:])
	k := &session.Key{ID: hex.EncodeToString(id[:]), Name: body.Name, Profiles: body.Profiles, Expires: expires}
	tok := apiwire.KeyPrefix + k.ID + "_" + hex.EncodeToString(secret[:])
	sum := sha256.Sum256([]byte(tok))
	k.Hash = sum[:]
	if err := store.CreateKey(r.Context(), k); err != nil {
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeStoreFailed, err.Error())
		return
	}
	s.logOf(r.Context()).Info("application key created", "key_id", k.ID, "key_name", k.Name, "profiles", k.Profiles,
		"by", identity.Owner(r.Context()))
	writeJSON(w, http.StatusCreated, apiwire.NewKey{Key: wireKey(*k), Secret: tok})
}

// checkKeyRequest is what is wrong with a new key's body ("" when nothing), and when
// it expires (zero: never). Its name is trimmed.
func (s *Server) checkKeyRequest(body *apiwire.KeyRequest, now time.Time) (time.Time, string) {
	body.Name = strings.TrimSpace(body.Name)
	switch {
	case body.Name == "":
		return time.Time{}, `"name" is required: what the key is for ("ci-bot")`
	case len(body.Name) > maxKeyName:
		return time.Time{}, fmt.Sprintf(`"name" is longer than %d bytes`, maxKeyName)
	case strings.ContainsFunc(body.Name, unicode.IsControl):
		return time.Time{}, `"name" holds a control character`
	case len(body.Profiles) == 0:
		return time.Time{}, `"profiles" is required: a key reaches exactly the profiles it names, and nothing without one`
	}
	var known []string
	if s.opts.Profiles != nil {
		known = s.opts.Profiles()
	}
	for i, p := range body.Profiles {
		switch {
		case p == "":
			return time.Time{}, fmt.Sprintf(`"profiles"[%d] is empty`, i)
		case slices.Contains(body.Profiles[:i], p):
			return time.Time{}, fmt.Sprintf(`"profiles" names %q twice`, p)
		case s.opts.Profiles != nil && !slices.Contains(known, p):
			if len(known) == 0 {
				return time.Time{}, fmt.Sprintf(`no profile %q: the config has no profiles ("switchboard": {"profiles": {…}})`, p)
			}
			return time.Time{}, fmt.Sprintf(`no profile %q in the config (there are %s)`, p, strings.Join(known, ", "))
		}
	}
	if body.ExpiresIn == "" {
		return time.Time{}, ""
	}
	d, err := parseExpiresIn(body.ExpiresIn)
	if err != nil {
		return time.Time{}, `"expiresIn": ` + err.Error()
	}
	return now.Add(d), ""
}

// parseExpiresIn reads a key's lifetime: Go's durations ("720h", "1h30m") or whole
// days ("30d"), positive.
func parseExpiresIn(v string) (time.Duration, error) {
	var d time.Duration
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n > 100*365 {
			return 0, fmt.Errorf("%q is not a number of days (\"30d\") nor a duration (\"720h\")", v)
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, fmt.Errorf("%q is not a number of days (\"30d\") nor a duration (\"720h\")", v)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q is not after now", v)
	}
	return d, nil
}

// listKeys answers GET /v1/keys (admins): every key, never its secret nor its hash.
func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	store, ok := s.keyStore()
	if !ok {
		writeJSON(w, http.StatusOK, apiwire.Keys{Keys: []apiwire.Key{}})
		return
	}
	ks, err := store.Keys(r.Context())
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeStoreFailed, err.Error())
		return
	}
	out := apiwire.Keys{Keys: make([]apiwire.Key, len(ks))}
	for i, k := range ks {
		out.Keys[i] = wireKey(k)
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteKey answers DELETE /v1/keys/{id} (admins): 204, and the key is refused from
// the next request on, on every replica of the store.
func (s *Server) deleteKey(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	store, ok := s.keyStore()
	if !ok {
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, "no application key "+id)
		return
	}
	err := store.DeleteKey(r.Context(), id)
	switch {
	case errors.Is(err, session.ErrKeyNotFound):
		writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, "no application key "+id)
		return
	case err != nil:
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeStoreFailed, err.Error())
		return
	}
	s.logOf(r.Context()).Info("application key revoked", "key_id", id, "by", identity.Owner(r.Context()))
	w.WriteHeader(http.StatusNoContent)
}

func wireKey(k session.Key) apiwire.Key {
	return apiwire.Key{ID: k.ID, Name: k.Name, Profiles: k.Profiles, Created: k.Created.UTC(),
		Expires: k.Expires.UTC(), LastUsed: k.LastUsed.UTC()}
}

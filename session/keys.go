package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Application keys: bearer tokens that an admin makes for a program (a CI bot, a
// service), each with a name and the profiles it may reach. A store keeps them beside
// the sessions, so that they survive a restart (SQLite) and every replica reads the
// same ones (PostgreSQL): a key deleted on one replica is refused by all on their
// next request, since nothing caches them. The store never sees a key's secret, only
// its hash: what makes and checks the secret is the API's.

// Errors of the key methods, wrapped with the key's id.
var (
	ErrKeyNotFound = errors.New("application key not found")
	ErrKeyExists   = errors.New("application key already exists")
)

// Key is an application key as a store keeps it.
type Key struct {
	// ID names the key in lists and in what it owns (it is part of the secret a
	// program holds, not the secret itself).
	ID string `json:"id"`
	// Name is what the admin called it ("ci-bot").
	Name string `json:"name"`
	// Profiles are the config's profiles it may reach, exactly.
	Profiles []string `json:"profiles"`
	// Hash is the SHA-256 of its secret: what a request's secret is compared with.
	// Keys (the list) leaves it out.
	Hash    []byte    `json:"-"`
	Created time.Time `json:"created"`
	// Expires is when it stops working; zero: never.
	Expires time.Time `json:"expires,omitzero"`
	// LastUsed is when a request last came with it (kept to the minute or so: see
	// the API), zero when none has.
	LastUsed time.Time `json:"lastUsed,omitzero"`
}

// Expired reports whether k no longer works at now.
func (k *Key) Expired(now time.Time) bool {
	return !k.Expires.IsZero() && !now.Before(k.Expires)
}

// KeyStore keeps application keys. Every store here is one (Store includes it).
type KeyStore interface {
	// CreateKey stores a new key, its Created set to now when zero. ErrKeyExists
	// when its ID is taken.
	CreateKey(ctx context.Context, k *Key) error
	// Key returns the key with its Hash; ErrKeyNotFound when there is none.
	Key(ctx context.Context, id string) (*Key, error)
	// Keys returns every key, Hash left out, oldest first (ties by id).
	Keys(ctx context.Context) ([]Key, error)
	// DeleteKey removes the key: from then on Key finds nothing. ErrKeyNotFound
	// when there is none.
	DeleteKey(ctx context.Context, id string) error
	// TouchKey sets the key's LastUsed. ErrKeyNotFound when there is none.
	TouchKey(ctx context.Context, id string, at time.Time) error
}

// KeyNotFound is the error for a key id that no key has.
func KeyNotFound(id string) error { return fmt.Errorf("%w: %s", ErrKeyNotFound, id) }

// KeyExists is the error for creating a key whose id is taken.
func KeyExists(id string) error { return fmt.Errorf("%w: %s", ErrKeyExists, id) }

// CheckKey is what CreateKey refuses in every store: a key without an id, a name or
// a hash. It sets a zero Created to now, and nil Profiles to an empty list.
func CheckKey(k *Key, now time.Time) error {
	switch {
	case k.ID == "":
		return errors.New("application key: empty id")
	case k.Name == "":
		return fmt.Errorf("application key %s: empty name", k.ID)
	case len(k.Hash) == 0:
		return fmt.Errorf("application key %s: no hash", k.ID)
	}
	if k.Created.IsZero() {
		k.Created = now
	}
	if k.Profiles == nil {
		k.Profiles = []string{}
	}
	return nil
}

// SortKeys orders keys as Keys returns them: oldest first, ties by id.
func SortKeys(ks []Key) {
	slices.SortFunc(ks, func(a, b Key) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

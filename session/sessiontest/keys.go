package sessiontest

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/session"
)

// testKeys: a key comes back from Key as created (its hash, profiles and times), from
// Keys without its hash, oldest first; a second key of the same id is refused;
// TouchKey sets its last use; DeleteKey removes it, and every key method then says
// ErrKeyNotFound naming it.
func testKeys(t *testing.T, st session.Store) {
	ctx := t.Context()
	if ks, err := st.Keys(ctx); err != nil || len(ks) != 0 {
		t.Fatalf("Keys of an empty store = %v, %v; want none", ks, err)
	}
	hash := sha256.Sum256([]byte("the secret"))
	created := time.Now().Add(-time.Hour).Truncate(time.Microsecond)
	expires := created.Add(90 * 24 * time.Hour)
	ci := &session.Key{ID: "k1", Name: "ci-bot", Profiles: []string{"ci", "docs"}, Hash: hash[:], Created: created, Expires: expires}
	before := time.Now()
	other := &session.Key{ID: "k0", Name: "reader", Hash: []byte{1, 2, 3}} // Created: now, so after ci
	for _, k := range []*session.Key{ci, other} {
		if err := st.CreateKey(ctx, k); err != nil {
			t.Fatalf("CreateKey(%s): %v", k.ID, err)
		}
	}
	if !within(other.Created, before, time.Now()) {
		t.Errorf("CreateKey set Created to %v, want now", other.Created)
	}
	wantErr(t, "CreateKey of a taken id", st.CreateKey(ctx, &session.Key{ID: "k1", Name: "again", Hash: []byte{9}}), session.ErrKeyExists, "k1")
	for _, bad := range []*session.Key{{Name: "x", Hash: []byte{1}}, {ID: "k9", Hash: []byte{1}}, {ID: "k9", Name: "x"}} {
		if err := st.CreateKey(ctx, bad); err == nil {
			t.Errorf("CreateKey(%+v) took a key without an id, a name or a hash", bad)
		}
	}

	got, err := st.Key(ctx, "k1")
	if err != nil {
		t.Fatalf("Key(k1): %v", err)
	}
	if got.Name != "ci-bot" || !slices.Equal(got.Profiles, []string{"ci", "docs"}) || !bytes.Equal(got.Hash, hash[:]) ||
		!sameTime(got.Created, created) || !sameTime(got.Expires, expires) || !got.LastUsed.IsZero() {
		t.Errorf("Key(k1) = %+v, want it as created", got)
	}
	if got, err := st.Key(ctx, "k0"); err != nil || got.Profiles == nil || len(got.Profiles) != 0 || !got.Expires.IsZero() {
		t.Errorf("Key(k0) = %+v, %v; want no profiles (an empty list) and no expiry", got, err)
	}

	used := time.Now().Truncate(time.Microsecond)
	if err := st.TouchKey(ctx, "k1", used); err != nil {
		t.Fatalf("TouchKey: %v", err)
	}
	list, err := st.Keys(ctx)
	if err != nil {
		t.Fatalf("Keys: %v", err)
	}
	if len(list) != 2 || list[0].ID != "k1" || list[1].ID != "k0" {
		t.Fatalf("Keys = %+v, want k1 then k0 (oldest first)", list)
	}
	if k := list[0]; k.Hash != nil || k.Name != "ci-bot" || !slices.Equal(k.Profiles, []string{"ci", "docs"}) ||
		!sameTime(k.LastUsed, used) || !sameTime(k.Expires, expires) {
		t.Errorf("Keys()[0] = %+v, want k1 with its last use and no hash", k)
	}

	if err := st.DeleteKey(ctx, "k1"); err != nil {
		t.Fatalf("DeleteKey: %v", err)
	}
	_, err = st.Key(ctx, "k1")
	wantErr(t, "Key after DeleteKey", err, session.ErrKeyNotFound, "k1")
	wantErr(t, "DeleteKey again", st.DeleteKey(ctx, "k1"), session.ErrKeyNotFound, "k1")
	wantErr(t, "TouchKey of a deleted key", st.TouchKey(ctx, "k1", used), session.ErrKeyNotFound, "k1")
	if list, err := st.Keys(ctx); err != nil || len(list) != 1 || list[0].ID != "k0" {
		t.Errorf("Keys after DeleteKey = %+v, %v; want k0 alone", list, err)
	}
	// Keys live beside the sessions, not among them.
	if l, err := st.List(ctx); err != nil || len(l) != 0 {
		t.Errorf("List = %v, %v; want no session", l, err)
	}
}

// testSharedKeys: a key one store creates the other finds, and once the other
// deletes it the first finds it no more (nothing cached: a revocation holds on
// every host at once).
func testSharedKeys(t *testing.T, open func(t *testing.T) (a, b session.Store)) {
	a, b := open(t)
	ctx := t.Context()
	if err := a.CreateKey(ctx, &session.Key{ID: "shared", Name: "bot", Profiles: []string{"ci"}, Hash: []byte{7}}); err != nil {
		t.Fatal(err)
	}
	if k, err := b.Key(ctx, "shared"); err != nil || k.Name != "bot" {
		t.Fatalf("the other store's Key = %+v, %v", k, err)
	}
	if err := b.DeleteKey(ctx, "shared"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Key(ctx, "shared"); !errors.Is(err, session.ErrKeyNotFound) {
		t.Fatalf("Key after the other store deleted it: %v, want ErrKeyNotFound", err)
	}
}

// keysClosed: after Close every key method says ErrClosed.
func keysClosed(t *testing.T, st session.Store) {
	ctx := t.Context()
	wantErr(t, "CreateKey", st.CreateKey(ctx, &session.Key{ID: "k", Name: "n", Hash: []byte{1}}), session.ErrClosed, "")
	_, err := st.Key(ctx, "k")
	wantErr(t, "Key", err, session.ErrClosed, "")
	_, err = st.Keys(ctx)
	wantErr(t, "Keys", err, session.ErrClosed, "")
	wantErr(t, "DeleteKey", st.DeleteKey(ctx, "k"), session.ErrClosed, "")
	wantErr(t, "TouchKey", st.TouchKey(ctx, "k", time.Now()), session.ErrClosed, "")
}

// sameTime compares to the microsecond.
func sameTime(a, b time.Time) bool {
	d := a.Sub(b)
	return d < time.Microsecond && d > -time.Microsecond
}

// within reports whether t lies in [from, to], to the microsecond.
func within(t, from, to time.Time) bool {
	return !t.Before(from.Add(-time.Microsecond)) && !t.After(to.Add(time.Microsecond))
}

package postgres_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
	"github.com/switchboard-mcp/switchboard/signin"
	"github.com/switchboard-mcp/switchboard/signin/postgres"
	"github.com/switchboard-mcp/switchboard/signin/signintest"
)

func TestMain(m *testing.M) {
	code := testenv.Main(m)
	testenv.StopPostgres()
	os.Exit(code)
}

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func open(t *testing.T, dsn string, key []byte) *postgres.Store {
	t.Helper()
	st, err := postgres.New(dsn, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	return st
}

// TestContract: the PostgreSQL store keeps the contract, against a real server.
func TestContract(t *testing.T) {
	t.Parallel()
	signintest.Run(t, func(t *testing.T) signin.Store { return open(t, testenv.Postgres(t), newKey(t)) })
}

// TestSealed: the database holds no token, secret, server URL or issuer in the
// clear; another replica with the same key reads the records; one with another key
// gets an error that says what to do, not an empty store (which would make it
// register again).
func TestSealed(t *testing.T) {
	t.Parallel()
	dsn, key := testenv.Postgres(t), newKey(t)
	st := open(t, dsn, key)
	rec := signintest.Record("https://mcp.example/mcp", "https://auth.example", time.Now())
	if err := st.Save(t.Context(), rec); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var row []byte
	if err := conn.QueryRow(t.Context(), `SELECT server_key || issuer_key || encode(sealed, 'escape') FROM switchboard_signins`).Scan(&row); err != nil {
		t.Fatal(err)
	}
	for _, clear := range []string{rec.Token.AccessToken, rec.Token.RefreshToken, rec.Client.Secret, rec.Server, rec.Issuer} {
		if bytes.Contains(row, []byte(clear)) {
			t.Errorf("the row holds %q in the clear", clear)
		}
	}
	recs, err := open(t, dsn, key).Load(t.Context(), rec.Server, "")
	if err != nil || len(recs) != 1 || recs[0].Token.AccessToken != rec.Token.AccessToken {
		t.Fatalf("another replica with the key: %v, %+v", err, recs)
	}
	_, err = open(t, dsn, newKey(t)).Load(t.Context(), rec.Server, "")
	if err == nil || !strings.Contains(err.Error(), "does not open with the key of $SWITCHBOARD_SECRET_KEY") {
		t.Errorf("a replica with another key: %v", err)
	}
}

// TestKey: a key is 32 bytes in base64 or hex; anything else says how to make one.
func TestKey(t *testing.T) {
	k := newKey(t)
	for _, s := range []string{base64.StdEncoding.EncodeToString(k), base64.RawURLEncoding.EncodeToString(k), " " + base64.StdEncoding.EncodeToString(k) + "\n"} {
		if got, err := postgres.Key(s); err != nil || !bytes.Equal(got, k) {
			t.Errorf("Key(%q) = %x, %v", s, got, err)
		}
	}
	if _, err := postgres.Key(""); !errors.Is(err, postgres.ErrNoKey) {
		t.Errorf("Key(\"\") = %v, want ErrNoKey", err)
	}
	if _, err := postgres.Key("c2hvcnQ="); err == nil || !strings.Contains(err.Error(), "openssl rand -base64 32") {
		t.Errorf("a short key: %v", err)
	}
}

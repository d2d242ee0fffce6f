// Package postgres is the signin.Store of several Switchboard replicas that share
// their sign-ins: one table in the PostgreSQL database of their sessions, every
// record sealed with AES-GCM under a key that only the replicas hold
// ($SWITCHBOARD_SECRET_KEY), so that the database (its backups, its readers) sees no
// token and no client secret.
//
//	key, err := postgres.Key(os.Getenv(postgres.KeyEnv)) // 32 bytes, base64 or hex
//	st, err := postgres.New(dsn, key)                     // connects on first use
//	defer st.Close()
//	hs := signin.NewHandlers(st, nil)
//
// A row is (a hash of the server's URL — with a hash of the person's subject for a
// person's own sign-in —, a hash of the issuer, when it was saved, the sealed
// record); the URL, the subject and the issuer are inside the sealed record, and the
// two keys are its additional data, so that a sealed record cannot be passed off as
// another row's (another person's, say).
package postgres

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/switchboard-mcp/switchboard/signin"
)

// KeyEnv is the environment variable that holds the key.
const KeyEnv = "SWITCHBOARD_SECRET_KEY"

// ErrNoKey is Key's error for an empty key.
var ErrNoKey = errors.New("sign-ins kept in PostgreSQL are encrypted, and $" + KeyEnv +
	" holds no key: set it, on every replica, to 32 random bytes in base64 (openssl rand -base64 32)")

// Key decodes a key of 32 bytes (AES-256) written in standard or URL-safe base64, or
// in hex.
func Key(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, ErrNoKey
	}
	for _, dec := range []func(string) ([]byte, error){
		hex.DecodeString, base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString,
	} {
		if k, err := dec(s); err == nil && len(k) == 32 {
			return k, nil
		}
	}
	return nil, fmt.Errorf("$%s is not a key of 32 bytes in base64 or hex: make one with openssl rand -base64 32", KeyEnv)
}

// Store is a signin.Store in a PostgreSQL database.
type Store struct {
	pool *pgxpool.Pool
	aead cipher.AEAD
	host string // the server, for errors; never the password

	mu      sync.Mutex
	created bool // the table exists
}

var _ signin.Store = (*Store)(nil)

// New returns the store in the database at dsn (a URL or key=value string, as pgx
// takes it), sealing with key (see Key). It connects on first use, when it creates
// its table unless it exists.
func New(dsn string, key []byte) (*Store, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("sign-in store: the key: %v", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("sign-in store: %w", err) // pgx masks the password
	}
	cfg.MaxConns = 4 // a sign-in is a few queries now and then
	host := fmt.Sprintf("postgres %s:%d/%s", cfg.ConnConfig.Host, cfg.ConnConfig.Port, cfg.ConnConfig.Database)
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		return nil, fmt.Errorf("sign-in store %s: %w", host, err)
	}
	return &Store{pool: pool, aead: aead, host: host}, nil
}

// Close closes the store's connections.
func (s *Store) Close() { s.pool.Close() }

func (s *Store) fail(what string, err error) error {
	return fmt.Errorf("sign-in store %s: %s: %w", s.host, what, err)
}

// tableLock is the advisory lock key that serializes replicas creating the table.
const tableLock = 0x5357_4244_5349_474e // "SWBDSIGN"

// table creates the table on first use.
func (s *Store) table(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.created {
		return nil
	}
	// Replicas starting at once would race to create it: one at a time.
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(tableLock)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS switchboard_signins (
			server_key text NOT NULL,
			issuer_key text NOT NULL,
			updated    timestamptz NOT NULL,
			sealed     bytea NOT NULL,
			PRIMARY KEY (server_key, issuer_key)
		)`)
		return err
	})
	if err != nil {
		return s.fail("schema", err)
	}
	s.created = true
	return nil
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// serverKey is the server_key of the records of (server, subject): a hash of the
// URL for the service's own (the key rows had before persons had their own), and a
// hash of the URL and one of the subject for a person's own.
func serverKey(server, subject string) string {
	if subject == "" {
		return hash(server)
	}
	return hash(server) + "~" + hash(subject)
}

// seal encrypts rec for its row: a random nonce, then the ciphertext.
func (s *Store) seal(rec *signin.Record, serverKey, issuerKey string) ([]byte, error) {
	plain, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, plain, []byte(serverKey+"/"+issuerKey)), nil
}

// open decrypts a row's record.
func (s *Store) open(sealed []byte, serverKey, issuerKey string) (*signin.Record, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n {
		return nil, errors.New("a sealed record too short to be one")
	}
	plain, err := s.aead.Open(nil, sealed[:n], sealed[n:], []byte(serverKey+"/"+issuerKey))
	if err != nil {
		return nil, fmt.Errorf("a record does not open with the key of $%s (sealed with another key, or altered): give every replica the same key, or run 'switchboard logout' for the server", KeyEnv)
	}
	var rec signin.Record
	if err := json.Unmarshal(plain, &rec); err != nil {
		return nil, err
	}
	return &rec, nil
}

// Load implements signin.Store.
func (s *Store) Load(ctx context.Context, server, subject string) ([]*signin.Record, error) {
	if err := s.table(ctx); err != nil {
		return nil, err
	}
	sk := serverKey(server, subject)
	rows, err := s.pool.Query(ctx, `SELECT issuer_key, sealed FROM switchboard_signins WHERE server_key = $1 ORDER BY updated DESC`, sk)
	if err != nil {
		return nil, s.fail("load", err)
	}
	defer rows.Close()
	out := []*signin.Record{}
	for rows.Next() {
		var ik string
		var sealed []byte
		if err := rows.Scan(&ik, &sealed); err != nil {
			return nil, s.fail("load", err)
		}
		rec, err := s.open(sealed, sk, ik)
		if err != nil {
			return nil, s.fail("load", err)
		}
		if rec.Server != server || rec.Subject != subject {
			continue // a hash collision, as unlikely as it is
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("load", err)
	}
	return out, nil
}

// Save implements signin.Store.
func (s *Store) Save(ctx context.Context, rec *signin.Record) error {
	if err := s.table(ctx); err != nil {
		return err
	}
	sk, ik := serverKey(rec.Server, rec.Subject), hash(rec.Issuer)
	sealed, err := s.seal(rec, sk, ik)
	if err != nil {
		return s.fail("save", err)
	}
	updated := rec.Updated
	if updated.IsZero() {
		updated = time.Now()
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO switchboard_signins (server_key, issuer_key, updated, sealed) VALUES ($1, $2, $3, $4)
		ON CONFLICT (server_key, issuer_key) DO UPDATE SET updated = EXCLUDED.updated, sealed = EXCLUDED.sealed`,
		sk, ik, updated, sealed)
	if err != nil {
		return s.fail("save", err)
	}
	return nil
}

// Delete implements signin.Store.
func (s *Store) Delete(ctx context.Context, server, subject string) error {
	if err := s.table(ctx); err != nil {
		return err
	}
	if _, err := s.pool.Exec(ctx, `DELETE FROM switchboard_signins WHERE server_key = $1`, serverKey(server, subject)); err != nil {
		return s.fail("delete", err)
	}
	return nil
}

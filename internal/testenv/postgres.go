package testenv

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// A real PostgreSQL server for the tests of the stores that use it: one server per
// test process (started by the first [Postgres] call, stopped by [StopPostgres]), one
// database per test.

// pgPrefix starts the server directory's name, followed by the owner's pid.
const pgPrefix = "switchboard-pg-"

type pgServer struct {
	bin  string // the directory of initdb, pg_ctl, createdb
	dir  string // holds data/, the log and the socket
	port int
	// asPostgres: we are root, and PostgreSQL refuses to run as root; its commands
	// run as the postgres user.
	asPostgres bool
}

var (
	pgMu      sync.Mutex
	pgStarted *pgServer
	pgErr     error
	pgMissing string
	pgDBs     atomic.Int64
)

// Postgres returns the DSN of a new, empty database on this process's PostgreSQL
// server, starting the server first when this is the first call: initdb into a
// temporary directory, then pg_ctl start on a free port of 127.0.0.1 (as the postgres
// user when the tests run as root). The database is dropped when the test ends. When
// PostgreSQL is not installed the test is skipped, or fails when CI=true (see
// [Missing]). A package that calls it runs [StopPostgres] from TestMain after its
// tests.
func Postgres(tb testing.TB) string {
	tb.Helper()
	pg, missing, err := startPostgres()
	if missing != "" {
		Missing(tb, "%s", missing)
		return ""
	}
	if err != nil {
		tb.Fatalf("testenv: PostgreSQL: %v", err)
	}
	name := fmt.Sprintf("test_%d", pgDBs.Add(1))
	if out, err := pg.run("createdb", "-h", "127.0.0.1", "-p", strconv.Itoa(pg.port), "-U", "postgres", name); err != nil {
		tb.Fatalf("testenv: createdb %s: %v\n%s", name, err, out)
	}
	tb.Cleanup(func() {
		// --force ends connections a test left open; the test's own cleanups (closing
		// its pools) have run by now.
		if out, err := pg.run("dropdb", "--force", "-h", "127.0.0.1", "-p", strconv.Itoa(pg.port), "-U", "postgres", name); err != nil {
			tb.Errorf("testenv: dropdb %s: %v\n%s", name, err, out)
		}
	})
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", pg.port, name)
}

// StopPostgres stops this process's PostgreSQL server (pg_ctl stop -m immediate: its
// data is thrown away) and removes its directory. It does nothing when none started.
func StopPostgres() {
	pgMu.Lock()
	defer pgMu.Unlock()
	if pgStarted != nil {
		pgStarted.stop()
		pgStarted = nil
	}
}

func startPostgres() (*pgServer, string, error) {
	pgMu.Lock()
	defer pgMu.Unlock()
	if pgStarted != nil || pgErr != nil || pgMissing != "" {
		return pgStarted, pgMissing, pgErr
	}
	pg, missing, err := newPgServer()
	if missing != "" || err != nil {
		pgMissing, pgErr = missing, err
		return nil, missing, err
	}
	pgStarted = pg
	return pg, "", nil
}

// newPgServer initdbs and starts a server in a new temporary directory; missing says
// why PostgreSQL cannot run here.
func newPgServer() (pg *pgServer, missing string, err error) {
	bin := postgresBin()
	if bin == "" {
		return nil, "PostgreSQL is not installed: no initdb under /usr/lib/postgresql/*/bin or on PATH (Debian: apt-get install postgresql)", nil
	}
	pg = &pgServer{bin: bin, asPostgres: os.Geteuid() == 0}
	var uid, gid int
	if pg.asPostgres {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Sprintf("the tests run as root and PostgreSQL refuses to; no postgres user to run it as (%v)", err), nil
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
	}
	sweepPostgres(pg)
	dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", pgPrefix, os.Getpid()))
	if err != nil {
		return nil, "", err
	}
	pg.dir = dir
	if pg.asPostgres {
		if err := os.Chown(dir, uid, gid); err != nil {
			_ = os.RemoveAll(dir)
			return nil, "", err
		}
	}
	if err := pg.start(); err != nil {
		pg.stop()
		return nil, "", err
	}
	return pg, "", nil
}

// PostgresServer is a PostgreSQL server of one test's own, which the test may stop
// and start again: what a client does while its database is away.
type PostgresServer struct {
	tb testing.TB
	pg *pgServer
}

// OwnPostgres starts a PostgreSQL server for the calling test alone (as [Postgres]
// does, skipping the test when PostgreSQL is not installed), and stops and removes it
// when the test ends. Its DSN carries a password, which the server (trust
// authentication) ignores: tests check that it shows nowhere.
func OwnPostgres(tb testing.TB) *PostgresServer {
	tb.Helper()
	pg, missing, err := newPgServer()
	if missing != "" {
		Missing(tb, "%s", missing)
		return nil
	}
	if err != nil {
		tb.Fatalf("testenv: PostgreSQL: %v", err)
	}
	tb.Cleanup(pg.stop)
	return &PostgresServer{tb: tb, pg: pg}
}

// DSN is the connection string of the server's postgres database.
func (p *PostgresServer) DSN(password string) string {
	return fmt.Sprintf("postgres://postgres:%s@127.0.0.1:%d/postgres?sslmode=disable", password, p.pg.port)
}

// Stop stops the server (pg_ctl stop -m fast: connections are cut), keeping its data.
func (p *PostgresServer) Stop() {
	p.tb.Helper()
	if out, err := p.pg.run("pg_ctl", "stop", "-D", filepath.Join(p.pg.dir, "data"), "-m", "fast", "-w"); err != nil {
		p.tb.Fatalf("testenv: pg_ctl stop: %v\n%s", err, out)
	}
}

// Start starts the stopped server again, on the same port with the same data.
func (p *PostgresServer) Start() {
	p.tb.Helper()
	if err := p.pg.launch(); err != nil {
		p.tb.Fatalf("testenv: %v", err)
	}
}

func (pg *pgServer) start() error {
	data := filepath.Join(pg.dir, "data")
	// --no-sync, fsync=off: the data is thrown away at the end.
	if out, err := pg.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"); err != nil {
		return fmt.Errorf("initdb: %v\n%s", err, out)
	}
	var last error
	for range 3 { // a free port may be taken before the server binds it
		port, err := freePort()
		if err != nil {
			return err
		}
		pg.port = port
		if last = pg.launch(); last == nil {
			return nil
		}
	}
	return last
}

// launch starts the initdb'd server on pg.port.
func (pg *pgServer) launch() error {
	opts := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=off -c full_page_writes=off -c max_connections=200", pg.port, pg.dir)
	out, err := pg.run("pg_ctl", "start", "-D", filepath.Join(pg.dir, "data"), "-l", filepath.Join(pg.dir, "log"), "-w", "-t", "60", "-o", opts)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(pg.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

func (pg *pgServer) stop() {
	data := filepath.Join(pg.dir, "data")
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
		_, _ = pg.run("pg_ctl", "stop", "-D", data, "-m", "immediate", "-w")
	}
	_ = os.RemoveAll(pg.dir)
}

// run runs one of PostgreSQL's programs, as the postgres user when we are root.
func (pg *pgServer) run(name string, args ...string) ([]byte, error) {
	prog := filepath.Join(pg.bin, name)
	var cmd *exec.Cmd
	switch {
	case !pg.asPostgres:
		cmd = exec.Command(prog, args...)
	case findProgram("runuser") != "":
		cmd = exec.Command(findProgram("runuser"), append([]string{"-u", "postgres", "--", prog}, args...)...)
	default:
		quoted := []string{shellQuote(prog)}
		for _, a := range args {
			quoted = append(quoted, shellQuote(a))
		}
		cmd = exec.Command("su", "postgres", "-s", "/bin/sh", "-c", strings.Join(quoted, " "))
	}
	cmd.Dir = os.TempDir() // the postgres user may not read the test's working directory
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

// postgresBin finds the newest /usr/lib/postgresql/N/bin (Debian, Ubuntu), or the
// directory of an initdb on PATH.
func postgresBin() string { return postgresBinIn("/usr/lib/postgresql") }

func postgresBinIn(root string) string {
	dirs, _ := filepath.Glob(filepath.Join(root, "*", "bin"))
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d
		}
	}
	if p := findProgram("initdb"); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

func findProgram(name string) string {
	p, _ := exec.LookPath(name)
	return p
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// sweepPostgres stops and removes the servers of test processes that died without
// StopPostgres.
func sweepPostgres(pg *pgServer) {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), pgPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		stale := *pg
		stale.dir = filepath.Join(os.TempDir(), e.Name())
		stale.stop()
	}
}

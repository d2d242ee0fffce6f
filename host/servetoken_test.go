package host_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
)

// TestServeToken: a service's own token is made once, kept readable by its owner
// only (0600 in a 0700 directory) and read back the same at the next start and by a
// client; services that start at once get one token between them; a file that other
// accounts may read, or that holds no token, is refused.
func TestServeToken(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	if tok, err := host.ReadServeToken(dir); tok != "" || err != nil {
		t.Fatalf("ReadServeToken before any = %q, %v; want none", tok, err)
	}
	// Several at once: every one gets the same.
	toks := make([]string, 8)
	var wg sync.WaitGroup
	for i := range toks {
		wg.Go(func() {
			tok, err := host.ServeToken(dir)
			if err != nil {
				t.Error(err)
			}
			toks[i] = tok
		})
	}
	wg.Wait()
	tok := toks[0]
	if len(tok) < 20 || strings.ContainsAny(tok, " \n") {
		t.Fatalf("token %q: want a long printable one", tok)
	}
	for _, other := range toks {
		if other != tok {
			t.Fatalf("services started at once got different tokens: %q", toks)
		}
	}
	path := filepath.Join(dir, host.ServeTokenFile)
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{path: 0o600, dir: 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v %v, want mode %04o", p, fi.Mode(), err, want)
			}
		}
	}
	if again, err := host.ServeToken(dir); again != tok || err != nil {
		t.Errorf("the next start's token %q, %v; want the same", again, err)
	}
	if read, err := host.ReadServeToken(dir); read != tok || err != nil {
		t.Errorf("ReadServeToken = %q, %v; want the token", read, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the data directory holds %v, want the token's file alone", entries)
	}

	if runtime.GOOS != "windows" {
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		for name, f := range map[string]func(string) (string, error){"ServeToken": host.ServeToken, "ReadServeToken": host.ReadServeToken} {
			if got, err := f(dir); got != "" || err == nil || !strings.Contains(err.Error(), "may be read by other accounts (mode 0644)") {
				t.Errorf("%s of a file others may read = %q, %v; want refused", name, got, err)
			}
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, []byte("two words\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := host.ServeToken(dir); got != "" || err == nil || !strings.Contains(err.Error(), "holds no token") {
		t.Errorf("ServeToken of a file with no token = %q, %v; want refused", got, err)
	}
}

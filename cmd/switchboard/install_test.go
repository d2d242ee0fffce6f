package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// modulePath is the module's path, as go.mod names it and README's go install has it.
const modulePath = "github.com/switchboard-mcp/switchboard"

// TestGoInstall is README's `go install …/cmd/switchboard@latest` without the network,
// from a clean module cache: a file:// module proxy serves HEAD (git archive, as a
// proxy serves a commit: under its pseudo-version, its latest), and the module
// cache's own download directory the dependencies, checked against HEAD's go.sum.
// The installed binary names that version and commit. It builds with -trimpath and
// CGO_ENABLED=0, as make dist and the Dockerfile do, so that it reuses their
// compiled dependencies: what it checks is the module path and what the proxy
// serves, not the compiler.
func TestGoInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary from a module zip")
	}
	t.Parallel()
	root := testenv.ModuleRoot(t)
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(string(mod), "\n"); first != "module "+modulePath {
		t.Fatalf("go.mod's first line is %q, want module %s (README's go install)", first, modulePath)
	}
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = root
		out, err := c.Output()
		if err != nil {
			t.Skipf("git %s: %v (not a git checkout?)", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	rev := git("rev-parse", "HEAD")
	unix := git("show", "-s", "--format=%ct", "HEAD")
	var secs int64
	if err := json.Unmarshal([]byte(unix), &secs); err != nil {
		t.Fatal(err)
	}
	when := time.Unix(secs, 0).UTC()
	version := "v0.0.0-" + when.Format("20060102150405") + "-" + rev[:12]

	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	at := filepath.Join(proxy, modulePath, "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	info, _ := json.Marshal(map[string]any{"Version": version, "Time": when.Format(time.RFC3339)})
	headMod := git("show", "HEAD:go.mod")
	for name, content := range map[string]string{
		"list":            "", // no tagged version: @latest asks $module/@latest
		version + ".info": string(info),
		version + ".mod":  headMod + "\n",
		"../@latest":      string(info),
	} {
		writeFile(t, filepath.Join(at, name), content)
	}
	zip := exec.Command("git", "archive", "--format=zip", "--prefix="+modulePath+"@"+version+"/", "-o", filepath.Join(at, version+".zip"), "HEAD")
	zip.Dir = root
	if out, err := zip.CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, out)
	}

	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	downloads := filepath.Join(strings.TrimSpace(string(cache)), "cache", "download")
	gopath := filepath.Join(tmp, "gopath")
	work := filepath.Join(tmp, "elsewhere") // outside the module: go install …@version ignores it anyway
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	install := exec.Command("go", "install", "-trimpath", modulePath+"/cmd/switchboard@latest")
	install.Dir = work
	install.Env = append(os.Environ(),
		"GOPATH="+gopath, "GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"), "GOBIN="+filepath.Join(tmp, "bin"),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(downloads),
		"GOSUMDB=off", "GOFLAGS=-mod=mod -buildvcs=false",
		"GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install %s/cmd/switchboard@latest: %v\n%s", modulePath, err, out)
	}
	out, err := exec.Command(filepath.Join(tmp, "bin", "switchboard"), "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "switchboard " + version + " (commit " + rev[:12] + ","; !strings.HasPrefix(string(out), want) {
		t.Errorf("the installed binary says %q, want it to start %q", out, want)
	}
	// The module cache's files are read-only, as go makes them: let TempDir remove them.
	_ = exec.Command("chmod", "-R", "u+w", gopath).Run()
}

package host_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/host"
	"github.com/switchboard-mcp/switchboard/host/admin"
)

// commentedFile is a config file with comments and a trailing comma.
const commentedFile = `// Team servers. Keep this comment.
{
  "mcpServers": {
    /* the clock */
    "clock": {"command": "date"},   // clock's line
  },
}
`

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAddServerToFile: a server added to a file that no Host runs keeps the file's
// comments, and removing it gives the file back as it was; a file that does not
// exist is made (0600, its directory too); a dry run writes nothing.
func TestAddServerToFile(t *testing.T) {
	path := writeTemp(t, "mcp.json", commentedFile)
	spec := host.EntrySpec{Command: "npx", Args: []string{"-y", "notes"}, Env: map[string]string{"TOKEN": "${NOTES_TOKEN}"}}
	res, err := host.AddServerToFile(path, "notes", spec.JSON(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Saved || res.Created || res.Source != path {
		t.Errorf("result %+v: want saved to the existing %s", res, path)
	}
	got := readFile(t, path)
	want := strings.Replace(commentedFile, `   // clock's line
`, `   // clock's line
    "notes": {
      "command": "npx",
      "args": ["-y", "notes"],
      "env": {
        "TOKEN": "${NOTES_TOKEN}"
      }
    },
`, 1)
	if got != want {
		t.Errorf("file after the add:\n%s\nwant:\n%s", got, want)
	}
	if _, err := host.RemoveServerFromFile(path, "notes", nil); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != commentedFile {
		t.Errorf("file after the remove:\n%s\nwant it as it was:\n%s", got, commentedFile)
	}

	fresh := filepath.Join(t.TempDir(), "new", "dir", "mcp.json")
	if _, err := host.AddServerToFile(fresh, "web", host.EntrySpec{URL: "https://x.example/mcp", OAuth: true}.JSON(), &host.FileEditOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(fresh); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a dry run made the file: %v", err)
	}
	res, err = host.AddServerToFile(fresh, "web", host.EntrySpec{URL: "https://x.example/mcp", OAuth: true}.JSON(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Saved || !res.Created {
		t.Errorf("result %+v: want a new file, saved", res)
	}
	var doc map[string]map[string]json.RawMessage
	if err := json.Unmarshal([]byte(readFile(t, fresh)), &doc); err != nil {
		t.Fatal(err)
	}
	if e := string(doc["mcpServers"]["web"]); e != `{
      "url": "https://x.example/mcp",
      "oauth": {}
    }` {
		t.Errorf("the new file's entry: %s", e)
	}
	if fi, err := os.Stat(fresh); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600) {
		t.Errorf("the new file: %v, mode %v; want 0600", err, fi.Mode())
	}
}

// TestEditFileRefused: an edit the config would not take, of a name it would not
// take, of a server it does not have, or of a file that does not load as it is,
// is an *admin.Error of its kind, and the file is left as it was.
func TestEditFileRefused(t *testing.T) {
	cases := []struct {
		name  string
		file  string
		edit  func(path string) error
		kind  admin.Kind
		field string
		msg   string
	}{
		{"exists", commentedFile, func(p string) error {
			_, err := host.AddServerToFile(p, "clock", host.EntrySpec{Command: "x"}.JSON(), nil)
			return err
		}, admin.Exists, "", `a server "clock" exists already`},
		{"bad name", commentedFile, func(p string) error {
			_, err := host.AddServerToFile(p, "switchboard-x", host.EntrySpec{Command: "x"}.JSON(), nil)
			return err
		}, admin.Invalid, "name", "begin with"},
		{"bad entry", commentedFile, func(p string) error {
			_, err := host.AddServerToFile(p, "w", host.EntrySpec{URL: "ftp://x"}.JSON(), nil)
			return err
		}, admin.Invalid, "url", "url"},
		{"not found", commentedFile, func(p string) error {
			_, err := host.RemoveServerFromFile(p, "nope", nil)
			return err
		}, admin.NotFound, "", `no server "nope"`},
		{"broken file", `{"mcpServers": {"clock": {"command": 3}}}`, func(p string) error {
			_, err := host.AddServerToFile(p, "w", host.EntrySpec{Command: "x"}.JSON(), nil)
			return err
		}, admin.ConfigInvalid, "", "does not load as it is now"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeTemp(t, "mcp.json", c.file)
			err := c.edit(path)
			var ae *admin.Error
			if !errors.As(err, &ae) || ae.Kind != c.kind || ae.Field != c.field || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %#v (%v), want an *admin.Error of kind %d, field %q, saying %q", ae, err, c.kind, c.field, c.msg)
			}
			if got := readFile(t, path); got != c.file {
				t.Errorf("a refused edit changed the file:\n%s", got)
			}
		})
	}
}

// codexConfig is a Codex config.toml of two servers, one of whose env a clash
// changes.
const codexConfig = `[mcp_servers.clock]
command = "date"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { API_KEY = "%s" }
`

// TestImportServers: a host's servers merged into a file with comments; a second
// import of the same finds them unchanged; a clash is refused without a decider
// (nothing written), and each choice does what it says.
func TestImportServers(t *testing.T) {
	home := t.TempDir()
	writeCodex := func(key string) {
		p := filepath.Join(home, ".codex", "config.toml")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(codexConfig, "%s", key, 1)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeCodex("first-key")
	path := writeTemp(t, "mcp.json", commentedFile)
	opts := func(clash func(host.Clash) (host.ClashChoice, error)) *host.ImportOptions {
		return &host.ImportOptions{Dir: t.TempDir(), Home: home, LookupEnv: func(string) (string, bool) { return "", false }, Clash: clash}
	}
	actions := func(res *host.ImportResult) []string {
		var out []string
		for _, s := range res.Servers {
			out = append(out, s.Name+":"+string(s.Action))
		}
		return out
	}

	res, err := host.ImportServers(path, "codex", opts(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(res); !slices.Equal(got, []string{"clock:unchanged", "docs:add"}) {
		t.Errorf("first import: %v", got)
	}
	if strings.Contains(string(res.Servers[1].Entry), "first-key") {
		t.Errorf("an imported entry shows its secret: %s", res.Servers[1].Entry)
	}
	after := readFile(t, path)
	if !strings.HasPrefix(after, "// Team servers. Keep this comment.\n") || !strings.Contains(after, `"API_KEY": "first-key"`) {
		t.Errorf("the file after the import:\n%s", after)
	}

	writeCodex("second-key")
	_, err = host.ImportServers(path, "codex", opts(nil))
	var ae *admin.Error
	if !errors.As(err, &ae) || ae.Kind != admin.Exists || !slices.Equal(ae.Servers, []string{"docs"}) {
		t.Fatalf("a clash without a decider: %v, want an admin.Exists naming docs", err)
	}
	if readFile(t, path) != after {
		t.Fatal("a refused import changed the file")
	}

	var asked []host.Clash
	for _, c := range []struct {
		choice host.ClashChoice
		dry    bool
		want   []string
		key    string
	}{
		{host.ReplaceExisting, true, []string{"clock:unchanged", "docs:replace"}, "first-key"},
		{host.KeepExisting, false, []string{"clock:unchanged", "docs:keep"}, "first-key"},
		{host.RenameImported, false, []string{"clock:unchanged", "docs-codex:rename"}, "second-key"},
		{host.ReplaceExisting, false, []string{"clock:unchanged", "docs:replace"}, "second-key"},
	} {
		o := opts(func(cl host.Clash) (host.ClashChoice, error) { asked = append(asked, cl); return c.choice, nil })
		o.DryRun = c.dry
		before := readFile(t, path)
		res, err := host.ImportServers(path, "codex", o)
		if err != nil {
			t.Fatal(err)
		}
		if got := actions(res); !slices.Equal(got, c.want) {
			t.Errorf("choice %d: %v, want %v", c.choice, got, c.want)
		}
		now := readFile(t, path)
		if c.dry && now != before {
			t.Errorf("a dry run changed the file")
		}
		if !strings.Contains(now, `"API_KEY": "`+c.key+`"`) {
			t.Errorf("choice %d: the file:\n%s", c.choice, now)
		}
	}
	if len(asked) == 0 || asked[0].Name != "docs" || asked[0].Rename != "docs-codex" || !slices.Equal(asked[0].Differ, []string{"env.API_KEY"}) ||
		strings.Contains(string(asked[0].Existing)+string(asked[0].Incoming), "-key") {
		t.Errorf("the clash asked about: %+v", asked)
	}
}

package config

import (
	"slices"
	"testing"
)

// Windows rules, checked on every OS: names are case-insensitive, so an env "PATH"
// replaces the host's "Path" (os/exec would otherwise keep whichever sorts last), and
// the base environment keeps what Windows programs need to start.
func TestEnvironWindowsRules(t *testing.T) {
	host := []string{`Path=C:\Windows`, `SystemRoot=C:\Windows`, `ComSpec=C:\Windows\system32\cmd.exe`,
		`APPDATA=C:\Users\u\AppData\Roaming`, `SECRET=host-secret`, `=C:=C:\`}
	own := map[string]string{"PATH": `C:\mine`}
	win := baseEnv("windows")
	tests := []struct {
		name    string
		inherit bool
		want    []string
	}{
		{"inherit", true, []string{`APPDATA=C:\Users\u\AppData\Roaming`, `ComSpec=C:\Windows\system32\cmd.exe`,
			`PATH=C:\mine`, `SECRET=host-secret`, `SystemRoot=C:\Windows`}},
		{"base only", false, []string{`APPDATA=C:\Users\u\AppData\Roaming`, `ComSpec=C:\Windows\system32\cmd.exe`,
			`PATH=C:\mine`, `SystemRoot=C:\Windows`}},
	}
	for _, tt := range tests {
		if got := environ(host, tt.inherit, own, win, true); !slices.Equal(got, tt.want) {
			t.Errorf("%s: environ = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Elsewhere names are case-sensitive: Path and PATH are two variables.
	got := environ(host, true, own, baseEnv("linux"), false)
	if !slices.Contains(got, `Path=C:\Windows`) || !slices.Contains(got, `PATH=C:\mine`) {
		t.Errorf("case-sensitive environ = %q, want both Path and PATH", got)
	}
}

package main

import (
	"fmt"
	"regexp"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version and revision are set at build time with -ldflags "-X main.version=v1.2.3
// -X main.revision=COMMIT" (make dist, the Dockerfile): a build in a git worktree, or
// with -buildvcs=false, has no VCS stamp to read.
var version, revision = "", ""

// versionNumber is the build's version: -ldflags, else the module version (what `go
// install …@v1.2.3` or @latest built), else "dev" (a build in a checkout).
func versionNumber() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}

// pseudoRev is the commit at the end of a pseudo-version
// (v0.0.0-20261128163700-0123456789ab, v1.2.4-0.20261128163700-0123456789ab).
var pseudoRev = regexp.MustCompile(`[-.]\d{14}-([0-9a-f]{12})(\+incompatible)?$`)

// commit is the build's commit: -ldflags's, else the one `go build` stamps in a checkout (with
// "+modified" when the tree had changes), else the one a pseudo-version names (`go
// install …@latest` of an untagged commit builds from a module zip, which carries no
// VCS stamp), else "" (a tagged release: its version says it).
func commit(info *debug.BuildInfo) string {
	if revision != "" {
		return revision
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev != "" {
		return rev + modified
	}
	if m := pseudoRev.FindStringSubmatch(info.Main.Version); m != nil {
		return m[1]
	}
	return ""
}

// versionString is the one line of `switchboard version` and --version: the version,
// the commit, the Go release and the MCP SDK's version.
func versionString() string {
	sdk, rev := "unknown", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		rev = commit(info)
		for _, dep := range info.Deps {
			if dep.Path == "github.com/modelcontextprotocol/go-sdk" {
				sdk = dep.Version
			}
		}
	}
	if rev != "" {
		rev = "commit " + rev + ", "
	}
	return fmt.Sprintf("switchboard %s (%s%s, mcp go-sdk %s)", versionNumber(), rev, runtime.Version(), sdk)
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the commit it was built from",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(a.stdout, versionString())
			return err
		},
	}
}

// Package baseurl checks the base URL an HTTP API client is given (a model's, an
// embeddings endpoint's): one rule for every client of ours, so that a URL one of
// them takes is not refused by another.
package baseurl

import (
	"fmt"
	"net/url"
	"strings"
)

// Parse returns raw without its trailing slashes, or def when that leaves nothing,
// and its parsed form. It must be an http or https URL with a host: "localhost:8080"
// (no scheme) is the mistake it catches. The error names the URL and not the
// client; the caller puts its own name in front.
func Parse(raw, def string) (string, *url.URL, error) {
	base := strings.TrimRight(raw, "/")
	if base == "" {
		base = def
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, fmt.Errorf("base URL %q is not an http(s) URL", base)
	}
	return base, u, nil
}

package api

import (
	"embed"
	"io/fs"
	"net/http"
	"strings"

	"github.com/switchboard-mcp/switchboard/apiwire"
)

// The dashboard is static files (api/dashboard: index.html, style.css, app.js and
// one script per view that plugs into app.js's window.switchboard; vendor/ holds
// uPlot, the Usage view's charting library) embedded in the binary: no build step,
// nothing fetched at run time. The
// page at / and its assets under /dashboard/ need no token — they hold no data; the
// page asks for the token when the API answers 401, keeps it in sessionStorage (the
// tab's life) and sends it as "Authorization: Bearer" on every request, the event
// stream included (read with fetch rather than EventSource, which cannot send
// headers).
//
//go:embed dashboard/*.html dashboard/*.js dashboard/*.css dashboard/vendor/*.js dashboard/vendor/*.css
var dashboardFiles embed.FS

// dashboardPolicy keeps the page to its own origin: its own script and style, images
// from data: URLs (tool results), requests to this API only, and no framing (a page
// elsewhere cannot overlay it to trick clicks on its buttons).
const dashboardPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src data:; " +
	"connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

func dashboardHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", dashboardPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	// The files change with the binary, which sets no modification time: revalidate.
	h.Set("Cache-Control", "no-cache")
}

// dashboard serves the page at /.
func (s *Server) dashboard(w http.ResponseWriter, r *http.Request) {
	page, err := dashboardFiles.ReadFile("dashboard/index.html")
	if err != nil { // cannot happen: the file is embedded
		writeError(w, r, http.StatusInternalServerError, apiwire.CodeInternal, err.Error())
		return
	}
	dashboardHeaders(w)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page)
}

// dashboardAssets serves the page's scripts and style under /dashboard/.
func (s *Server) dashboardAssets() http.HandlerFunc {
	sub, _ := fs.Sub(dashboardFiles, "dashboard")
	files := http.StripPrefix("/dashboard/", http.FileServerFS(sub))
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/dashboard/" || r.URL.Path == "/dashboard/index.html" {
			// One address for the page; no directory listing.
			http.Redirect(w, r, "/", http.StatusMovedPermanently)
			return
		}
		// A file that is not there is the API's JSON 404, not the file server's text
		// (fs.Stat refuses a name that is not a valid path too).
		if _, err := fs.Stat(sub, strings.TrimPrefix(r.URL.Path, "/dashboard/")); err != nil {
			writeError(w, r, http.StatusNotFound, apiwire.CodeNotFound, "no file "+r.URL.Path+" (the dashboard's files are /dashboard/app.js and /dashboard/style.css)")
			return
		}
		dashboardHeaders(w)
		files.ServeHTTP(w, r)
	}
}

package fakeauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
)

// Browse is a stand-in browser: it opens the authorization URL and follows the
// redirects, as a person's browser does after they click "Allow", to wherever the
// authorization server sends it (the client's redirect URI).
func Browse(ctx context.Context, authURL string) error { return BrowseAs(ctx, authURL, "") }

// BrowseAs is Browse by the browser of person: the tokens of the sign-in are theirs
// (the tool "person" says so).
func BrowseAs(ctx context.Context, authURL, person string) error {
	page, err := Visit(ctx, nil, authURL, person)
	if err != nil {
		return err
	}
	if page.Status >= 400 {
		return fmt.Errorf("browser: %s answered %d: %s", page.URL, page.Status, page.Body)
	}
	return nil
}

// Page is where a stand-in browser's visit ended: the last page's address, status
// and body.
type Page struct {
	URL    string
	Status int
	Body   string
}

// Visit is BrowseAs by a browser whose cookies jar keeps (nil: a browser without
// any), as the service that asked for the sign-in set them: it answers the page the
// redirects ended at (the service's callback), whatever its status.
func Visit(ctx context.Context, jar http.CookieJar, authURL, person string) (Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return Page{}, err
	}
	if person != "" {
		req.Header.Set(PersonHeader, person)
	}
	// A transport of its own, closed after: nothing outlives the visit.
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Jar: jar}).Do(req)
	if err != nil {
		return Page{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Page{}, err
	}
	return Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, Body: string(body)}, nil
}

//go:build unix

package api_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/switchboard-mcp/switchboard/internal/testenv"
)

// BenchmarkDashboardFirstPaint loads the dashboard in a browser that is already
// running, its cache cleared before each load (a first visit), from a server on
// loopback, and reports the first contentful paint (the Paint Timing API's, from
// the start of the navigation): fcp-ms-p50, which the serve issue aims to keep
// under 200 ms, and fcp-ms-p90; and floor-fcp-ms-p50, the same browser's first
// paint of a page of one heading from a server that does nothing else. The first
// load of a new browser, which also starts its renderer, is a warm-up and not
// counted. Needs Debian's chromium.
func BenchmarkDashboardFirstPaint(b *testing.B) {
	ctx := browser(b)
	_, url := benchServe(b)
	clearCache := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, network.ClearBrowserCache, cdp.Empty{})
		return err
	})
	load := func(url string) float64 {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(ctx, clearCache, chromedp.Navigate(url)); err != nil {
			b.Fatalf("loading the dashboard: %v", err)
		}
		const entry = `performance.getEntriesByName("first-contentful-paint")[0]`
		if err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Poll[bool](entry+` !== undefined`, chromedp.WithPollingInterval(5*time.Millisecond))(ctx, t)
			return err
		})); err != nil {
			b.Fatalf("waiting for the first contentful paint: %v", err)
		}
		fcp, err := chromedp.Run(ctx, chromedp.Evaluate[float64](entry+`.startTime`))
		if err != nil {
			b.Fatalf("reading the first contentful paint: %v", err)
		}
		return fcp
	}
	// The floor: the same browser's first paint of a page of one heading, from a
	// server on loopback that does nothing else.
	floorSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>floor</title><h1>Switchboard</h1>")
	}))
	b.Cleanup(floorSrv.Close)
	floorPage := floorSrv.URL + "/"
	load(url + "/")
	fcps, floor := make([]float64, 0, b.N), make([]float64, 0, b.N)
	b.ResetTimer()
	for range b.N {
		fcps = append(fcps, load(url+"/"))
		floor = append(floor, load(floorPage))
	}
	b.StopTimer()
	b.ReportMetric(testenv.Median(fcps), "fcp-ms-p50")
	b.ReportMetric(percentile(fcps, 0.9), "fcp-ms-p90")
	b.ReportMetric(testenv.Median(floor), "floor-fcp-ms-p50")
}

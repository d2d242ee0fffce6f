package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

// healthTimeout bounds a probe: a container's health check has its own, and a
// service that does not answer in that time is not healthy.
const healthTimeout = 5 * time.Second

// healthCommand asks a running service's /health: the probe of an image that has no
// curl (the Dockerfile's HEALTHCHECK runs the binary itself).
func (a *app) healthCommand() *cobra.Command {
	var target string
	cmd := &cobra.Command{
		Use:   "health",
		Short: "Ask a running service whether it answers (a container's health check)",
		Long: `Health sends GET /health to the service at --url and prints its answer. It is the
probe of a container image that has nothing but the binary (the Dockerfile's
HEALTHCHECK): the service answers, so it is healthy, even when some server it
supervises is not ready ("status": "degraded" in the answer).

Exit codes: 0 the service answered 200, 1 it did not answer or answered otherwise, 2
usage error.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := url.Parse(target)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return commandLineError("--url %q: want an http or https URL (e.g. http://127.0.0.1:7300)", target)
			}
			if u.Path == "" || u.Path == "/" {
				u.Path = "/health"
			}
			client := &http.Client{Timeout: healthTimeout, Transport: &http.Transport{DisableKeepAlives: true}}
			req, err := http.NewRequestWithContext(cmd.Context(), http.MethodGet, u.String(), nil)
			if err != nil {
				return commandLineError("--url %q: %v", target, err)
			}
			res, err := client.Do(req)
			if err != nil {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
			}
			defer res.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
			if res.StatusCode != http.StatusOK {
				return &exitError{code: exitFailed, err: fmt.Errorf("%s: GET %s: %s %s", cmd.CommandPath(), u, res.Status, strings.TrimSpace(string(body)))}
			}
			_, err = fmt.Fprintln(a.stdout, strings.TrimSpace(string(body)))
			return err
		},
	}
	cmd.Flags().StringVar(&target, "url", "http://127.0.0.1:7300", "the service's URL (its /health is asked), or the URL of a probe path itself")
	return cmd
}

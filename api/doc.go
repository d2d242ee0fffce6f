// Package api is Switchboard's HTTP service.
package api

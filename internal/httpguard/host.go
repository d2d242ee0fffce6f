package httpguard

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// CheckHost refuses a request that reached a loopback address under a Host that is
// not loopback: a page of another site whose name was rebound to 127.0.0.1 (DNS
// rebinding) would otherwise reach a service that trusts the machine. As the MCP
// SDK's Streamable HTTP handler does; see the spec's security best practices
// (2025-11-25, "Local MCP Server Compromise").
func CheckHost(r *http.Request) error {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if ok && local != nil && IsLoopback(local.String()) && !IsLoopback(r.Host) {
		return errors.New("invalid Host header " + strconv.Quote(r.Host) + " for a loopback address")
	}
	return nil
}

// IsLoopback reports whether a host or host:port names the loopback interface.
func IsLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

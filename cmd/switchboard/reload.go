package main

import (
	"os"
	"os/signal"
	"syscall"
)

// A running gateway follows its config file (host.Host.Follow): on SIGHUP, and when a
// check every --watch interval finds the file changed.

// reloadSignals starts catching SIGHUP, the signal that asks for a reload, so that
// one sent before the servers are up waits for them instead of ending the process.
// stop undoes it.
func reloadSignals() (hup chan os.Signal, stop func()) {
	hup = make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	return hup, func() { signal.Stop(hup) }
}

// configFile is the config file a command loaded, as read before loading it: a change
// made after that read is never missed. A zero configFile is the built-in demo config.
type configFile struct {
	path string
	data []byte
}

// readConfigFile reads the file loadConfig is about to load; "" (the demo) reads nothing,
// and a read error is loadConfig's to report.
func (a *app) readConfigFile() configFile {
	path := a.configSource()
	if path == "" {
		return configFile{}
	}
	data, _ := os.ReadFile(path)
	return configFile{path, data}
}

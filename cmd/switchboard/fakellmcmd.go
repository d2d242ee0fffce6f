package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/switchboard-mcp/switchboard/host/devtools"
)

// fakeLLMCommand serves a fake model (devtools.NewFakeModel) on loopback, so that chat can be
// tried, and the README's turn shown, with no API key. Hidden: it is a demo and test
// aid, not a feature.
func (a *app) fakeLLMCommand() *cobra.Command {
	var provider, listen string
	cmd := &cobra.Command{
		Use:    "fake-llm",
		Short:  "Serve a fake model on loopback (for trying chat without an API key)",
		Hidden: true,
		Long: `Fake-llm serves a deterministic fake model that speaks the OpenAI Chat Completions
or the Anthropic Messages wire format, until Ctrl-C. A message "call TOOL {json}" makes
it call TOOL with those arguments; after the tools' results it answers with their
texts; anything else it echoes.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			srv, err := devtools.NewFakeModel(provider, listen)
			var unknown *devtools.UnknownProviderError
			if errors.As(err, &unknown) {
				return commandLineError("--provider %s: want openai or anthropic", provider)
			}
			if err != nil {
				return usageError("--listen %s: %v", listen, err)
			}
			defer srv.Close()
			fmt.Fprintf(a.stdout, "fake %s model at %s (any model name and key)\n", provider, srv.URL)
			<-cmd.Context().Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&provider, "provider", "openai", "wire format: openai or anthropic")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1:8940", "address to listen on")
	return cmd
}

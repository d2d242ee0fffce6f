package anthropic

import (
	"context"
	"encoding/json"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/switchboard-mcp/switchboard/llm"
)

var _ llm.TokenCounter = (*Model)(nil)

// CountTokens implements llm.TokenCounter with the API's token counting
// (https://docs.anthropic.com/en/api/messages-count-tokens): the request as Generate
// would send it (the same system, messages, tools and tool_choice, the same model),
// without what only an answer takes (max_tokens, temperature).
func (m *Model) CountTokens(ctx context.Context, req *llm.Request) (int64, error) {
	p, err := m.params(req)
	if err != nil {
		return 0, m.fail(0, err.Error(), err)
	}
	cp := sdk.MessageCountTokensParams{Model: p.Model, Messages: p.Messages, ToolChoice: p.ToolChoice}
	if len(p.System) > 0 {
		cp.System = sdk.MessageCountTokensParamsSystemUnion{OfTextBlockArray: p.System}
	}
	for _, t := range p.Tools {
		// The same definition under count_tokens' own union type.
		d, err := json.Marshal(t)
		if err != nil {
			return 0, m.fail(0, "encoding a tool: "+err.Error(), err)
		}
		cp.Tools = append(cp.Tools, param.Override[sdk.MessageCountTokensToolUnionParam](json.RawMessage(d)))
	}
	res, err := m.client.Messages.CountTokens(ctx, cp)
	if err != nil {
		return 0, m.convert(ctx, err)
	}
	return res.InputTokens, nil
}

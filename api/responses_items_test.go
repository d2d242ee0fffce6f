package api_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/switchboard-mcp/switchboard/api"
)

// itemText is an input item as "message role: part text", or "type call_id".
func itemText(t *testing.T, it responses.ResponseItemUnion) string {
	t.Helper()
	var v struct {
		Type, Role string
		Content    []struct{ Type, Text string }
	}
	if err := json.Unmarshal([]byte(it.RawJSON()), &v); err != nil {
		t.Fatal(err)
	}
	if v.Type != "message" {
		return v.Type + " " + it.CallID
	}
	if len(v.Content) != 1 {
		return "message with " + it.RawJSON()
	}
	return v.Type + " " + v.Role + ": " + v.Content[0].Type + " " + v.Content[0].Text
}

// TestResponsesInputItems: the official client lists a kept response's input items as
// OpenAI pages them, newest first unless asked otherwise, a page at a time (after,
// limit, has_more) and all of them with auto-paging; a continued response's are its
// own request's. Another person's response is a 404, as GET's is.
func TestResponsesInputItems(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Identify: testPeople}})
	ctx := chatCtx(t)
	alice := openAIClient(e, "alice-token")
	first, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: itemsInput(
		responses.ResponseInputItemParamOfMessage("Be brief.", responses.EasyInputMessageRoleDeveloper),
		responses.ResponseInputItemParamOfMessage("hi", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfMessage("Hello.", responses.EasyInputMessageRoleAssistant),
		responses.ResponseInputItemParamOfMessage(convertCall, responses.EasyInputMessageRoleUser),
	)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"message developer: input_text Be brief.", "message user: input_text hi",
		"message assistant: output_text Hello.", "message user: input_text " + convertCall}

	page, err := alice.Responses.InputItems.List(ctx, first.ID, responses.InputItemListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range page.Data {
		got = append(got, itemText(t, it))
	}
	desc := slices.Clone(want)
	slices.Reverse(desc)
	if !slices.Equal(got, desc) || page.HasMore {
		t.Errorf("newest first: %q, has_more %v", got, page.HasMore)
	}
	var list struct {
		Object  string
		FirstID string `json:"first_id"`
		LastID  string `json:"last_id"`
	}
	if err := json.Unmarshal([]byte(page.RawJSON()), &list); err != nil || list.Object != "list" ||
		list.FirstID != page.Data[0].ID || list.LastID != page.Data[3].ID {
		t.Errorf("list %s", page.RawJSON())
	}

	asc := responses.InputItemListParams{Order: responses.InputItemListParamsOrderAsc, Limit: openai.Int(3)}
	page, err = alice.Responses.InputItems.List(ctx, first.ID, asc)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 3 || !page.HasMore || itemText(t, page.Data[0]) != want[0] {
		t.Fatalf("first page of 3: %s", page.RawJSON())
	}
	next, err := page.GetNextPage()
	if err != nil || next == nil || len(next.Data) != 1 || next.HasMore || itemText(t, next.Data[0]) != want[3] {
		t.Fatalf("next page: %v %+v", err, next)
	}
	got = nil
	asc.Limit = openai.Int(1)
	iter := alice.Responses.InputItems.ListAutoPaging(ctx, first.ID, asc)
	for iter.Next() {
		got = append(got, itemText(t, iter.Current()))
	}
	if err := iter.Err(); err != nil || !slices.Equal(got, want) {
		t.Errorf("all, one at a time: %q %v", got, err)
	}

	// A continued response lists its own request's input, not the history before it.
	second, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("thanks"), PreviousResponseID: openai.String(first.ID)})
	if err != nil {
		t.Fatal(err)
	}
	page, err = alice.Responses.InputItems.List(ctx, second.ID, responses.InputItemListParams{})
	if err != nil || len(page.Data) != 1 || itemText(t, page.Data[0]) != "message user: input_text thanks" {
		t.Errorf("the continued response's items: %v %+v", err, page)
	}

	// A function call of the client's, answered: the answer's input is its output.
	asked, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput(`call lookup_order {"order": "A-17"}`),
		Tools: []responses.ToolUnionParam{lookupOrder}})
	if err != nil || len(asked.Output) != 1 || asked.Output[0].Type != "function_call" {
		t.Fatalf("asking for the call: %v", err)
	}
	call := asked.Output[0].AsFunctionCall()
	answered, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: itemsInput(callOutput(call.CallID, "shipped")),
		Tools: []responses.ToolUnionParam{lookupOrder}, PreviousResponseID: openai.String(asked.ID)})
	if err != nil {
		t.Fatal(err)
	}
	page, err = alice.Responses.InputItems.List(ctx, answered.ID, responses.InputItemListParams{})
	if err != nil || len(page.Data) != 1 || itemText(t, page.Data[0]) != "function_call_output "+call.CallID ||
		page.Data[0].AsFunctionCallOutput().Output.OfString != "shipped" {
		t.Errorf("the answer's items: %v %s", err, page.RawJSON())
	}

	bob := openAIClient(e, "bob-token")
	var ae *openai.Error
	_, err = bob.Responses.InputItems.List(ctx, first.ID, responses.InputItemListParams{})
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound || ae.Code != "not_found" {
		t.Errorf("bob listing alice's: %v", err)
	}
	e.do("GET", "/v1/responses/"+first.ID+"/input_items?limit=0", nil, "Authorization: Bearer alice-token").
		want(t, 400, `"param": "limit"`, "want a whole number from 1 to 100")
	e.do("GET", "/v1/responses/"+first.ID+"/input_items?after=x", nil, "Authorization: Bearer alice-token").
		want(t, 400, `"param": "after"`)
}

// TestResponsesDelete: the official client deletes a kept response, which is then
// gone (a 404 to GET, input_items, a second delete, and as previous_response_id);
// OpenAI's deletion object is the answer. Another person's response is a 404 to
// delete, and stays.
func TestResponsesDelete(t *testing.T) {
	t.Parallel()
	e := start(t, setup{model: true, opts: api.Options{Identify: testPeople}})
	ctx := chatCtx(t)
	alice, bob := openAIClient(e, "alice-token"), openAIClient(e, "bob-token")
	first, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("hi")})
	if err != nil {
		t.Fatal(err)
	}
	second, err := alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("hi again")})
	if err != nil {
		t.Fatal(err)
	}
	var ae *openai.Error
	if err := bob.Responses.Delete(ctx, first.ID); !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
		t.Errorf("bob deleting alice's: %v", err)
	}
	if err := alice.Responses.Delete(ctx, first.ID); err != nil {
		t.Fatalf("alice deleting hers: %v", err)
	}
	notFound := func(what string, err error) {
		t.Helper()
		if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
			t.Errorf("%s after the delete: %v", what, err)
		}
	}
	_, err = alice.Responses.Get(ctx, first.ID, responses.ResponseGetParams{})
	notFound("get", err)
	_, err = alice.Responses.InputItems.List(ctx, first.ID, responses.InputItemListParams{})
	notFound("input_items", err)
	notFound("delete", alice.Responses.Delete(ctx, first.ID))
	_, err = alice.Responses.New(ctx, responses.ResponseNewParams{Model: "m", Input: textInput("and?"), PreviousResponseID: openai.String(first.ID)})
	notFound("previous_response_id", err)

	e.do("DELETE", "/v1/responses/"+second.ID, nil, "Authorization: Bearer alice-token").
		want(t, 200, `"id": "`+second.ID+`"`, `"object": "response.deleted"`, `"deleted": true`)
	e.do("GET", "/v1/sessions", nil, "Authorization: Bearer alice-token").want(t, 200, `"sessions": []`)
}

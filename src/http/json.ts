// The one spelling of the JSON media type every JSON answer carries (the web edge's errors and
// payloads, the MCP endpoint's replies, the job API's answers).
export const JSON_TYPE = 'application/json; charset=utf-8';

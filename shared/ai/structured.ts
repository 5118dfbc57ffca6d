// One forced tool call per request: the tool's input_schema comes from a zod schema, and the
// model's tool input is validated with the same schema before anyone uses it.
import Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { InvalidAiOutputError, toAiError, type AiUsage, type OutputIssue } from './errors.ts';
import { parseAnthropicRateLimits, type RateLimitSnapshot } from './rate-limits.ts';

export interface GenerateStructuredInput<S extends z.ZodType> {
  client: Anthropic;
  model: string;
  system: string;
  prompt: string;
  toolName: string;
  toolDescription?: string;
  schema: S;
  maxTokens: number;
  temperature?: number;
  /** Total calls when the output is invalid (the model is shown the problems); default 2. */
  attempts?: number;
  signal?: AbortSignal;
}

export interface StructuredResult<T> {
  data: T;
  /** Summed over every attempt, failed ones included: they were billed. */
  usage: AiUsage;
  model: string;
  rateLimits: RateLimitSnapshot;
  requestId: string | null;
}

/** JSON Schema for a tool's input_schema (draft 2020-12 as Anthropic expects, without `$schema`). */
export function toolInputSchema(schema: z.ZodType): Anthropic.Messages.Tool.InputSchema {
  const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12' }) as Record<string, unknown>;
  if (json.type !== 'object') throw new TypeError('a tool input schema must be a zod object');
  return json as Anthropic.Messages.Tool.InputSchema;
}

const issuesOf = (error: z.ZodError): OutputIssue[] =>
  error.issues.map((i) => ({ path: i.path.map(String).join('.') || '(root)', message: i.message }));

export async function generateStructured<S extends z.ZodType>(
  input: GenerateStructuredInput<S>,
): Promise<StructuredResult<z.output<S>>> {
  const attempts = Math.max(1, input.attempts ?? 2);
  const tool: Anthropic.Messages.Tool = {
    name: input.toolName,
    description: input.toolDescription ?? `Record the result. Call ${input.toolName} exactly once.`,
    input_schema: toolInputSchema(input.schema),
  };
  const messages: Anthropic.Messages.MessageParam[] = [{ role: 'user', content: input.prompt }];
  const usage: AiUsage = { inputTokens: 0, outputTokens: 0 };
  let issues: OutputIssue[] = [];

  let attemptsMade = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    attemptsMade = attempt;
    let result;
    try {
      result = await input.client.messages
        .create(
          {
            model: input.model,
            max_tokens: input.maxTokens,
            system: input.system,
            messages,
            tools: [tool],
            tool_choice: { type: 'tool', name: input.toolName },
            ...(input.temperature === undefined ? {} : { temperature: input.temperature }),
          },
          { signal: input.signal },
        )
        .withResponse();
    } catch (err) {
      throw toAiError(err, 'anthropic', Anthropic);
    }
    const { data: message, response, request_id } = result;
    usage.inputTokens += message.usage.input_tokens;
    usage.outputTokens += message.usage.output_tokens;

    if (message.stop_reason === 'max_tokens') {
      issues = [{ path: '(root)', message: `output cut off at max_tokens ${input.maxTokens}` }];
      break; // asking again with the same budget would be cut off again
    }
    const block = message.content.find(
      (b): b is Anthropic.Messages.ToolUseBlock => b.type === 'tool_use' && b.name === input.toolName,
    );
    if (!block) {
      issues = [{ path: '(root)', message: `no ${input.toolName} call (stop_reason ${message.stop_reason})` }];
      continue;
    }
    const parsed = input.schema.safeParse(block.input);
    if (parsed.success) {
      return {
        data: parsed.data,
        usage,
        model: message.model,
        rateLimits: parseAnthropicRateLimits(response.headers),
        requestId: request_id ?? null,
      };
    }
    issues = issuesOf(parsed.error);
    // Show the model what was wrong and ask again: the usual repair turn of tool use.
    messages.push(
      { role: 'assistant', content: [{ type: 'tool_use', id: block.id, name: block.name, input: block.input }] },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: block.id,
            is_error: true,
            content: `The input did not match the schema: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}. Call ${input.toolName} again with a corrected input.`,
          },
        ],
      },
    );
  }
  throw new InvalidAiOutputError(input.toolName, issues, attemptsMade, usage);
}

import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";

/**
 * A chat model without a model: it answers with the reply it is built with, streamed word by
 * word through LangChain's callbacks, so the server's `messages` stream mode sees message chunks
 * as it would from a real model, deterministically and offline.
 */
export class EchoChatModel extends BaseChatModel {
  readonly reply: string;

  constructor(reply: string) {
    super({});
    this.reply = reply;
  }

  _llmType(): string {
    return "echo";
  }

  async _generate(): Promise<ChatResult> {
    return { generations: [{ text: this.reply, message: new AIMessage({ content: this.reply }) }] };
  }

  override async *_streamResponseChunks(_messages: BaseMessage[], _options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun) {
    for (const piece of this.reply.split(/(?<= )/)) {
      const chunk = new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

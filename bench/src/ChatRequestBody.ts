/** A typical small chat request, the same for every target. */
export const chatRequest = {
  model: "gpt-4o-mini",
  temperature: 0.2,
  messages: [
    { role: "system", content: "You are a concise assistant for an online bookshop." },
    { role: "user", content: "Do you have the second volume of the Three-Body trilogy in paperback?" },
    { role: "assistant", content: "Yes, The Dark Forest is in stock in paperback." },
    { role: "user", content: "Great, how long does delivery to Lyon take?" }
  ]
}

export const chatPath = "/v1/chat/completions"

/** The same conversation as an Anthropic Messages request, for `--messages`. */
export const messagesRequest = {
  model: chatRequest.model,
  max_tokens: 256,
  temperature: chatRequest.temperature,
  system: chatRequest.messages[0]?.content,
  messages: chatRequest.messages.slice(1)
}

export const messagesPath = "/v1/messages"

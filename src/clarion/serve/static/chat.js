"use strict";
// The chat transcript shared by the chat page (/) and the evaluation page (/eval). No external code: works offline.

async function postJson(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify(body),
  });
  let data = null;
  try { data = await response.json(); } catch (err) { data = null; }
  if (!response.ok) {
    const detail = data && typeof data.detail === "string" ? data.detail : response.statusText;
    throw new Error(`${response.status}: ${detail}`);
  }
  return data;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const ACTION_LABELS = {clarify: "Clarifying question", answer: "Answer", stop: "End of conversation"};

class Chat {
  constructor(transcript, status) {
    this.transcript = transcript;
    this.status = status;
    this.turns = [];
  }

  clear() {
    this.turns = [];
    this.transcript.replaceChildren();
    this.say("");
  }

  say(message, isError) {
    this.status.textContent = message;
    this.status.className = isError ? "error" : "";
  }

  addUser(text) {
    const bubble = element("div", "turn user");
    bubble.dataset.testid = "user-turn";
    bubble.append(element("p", "text", text));
    this.transcript.append(bubble);
    bubble.scrollIntoView({block: "end"});
    return bubble;
  }

  addSystem(decision) {
    const bubble = element("div", `turn system ${decision.action}`);
    bubble.dataset.testid = "system-turn";
    bubble.dataset.action = decision.action;
    bubble.append(element("span", "badge", ACTION_LABELS[decision.action] || decision.action));
    if (decision.text) bubble.append(element("p", "text", decision.text));
    if (decision.sources && decision.sources.length) {
      const sources = element("details", "sources");
      sources.append(element("summary", "", `Sources (${decision.sources.length})`));
      const list = element("ol");
      for (const source of decision.sources) {
        const item = element("li");
        if (source.title) item.append(element("b", "", source.title + " "));
        item.append(element("span", "", source.text || source.id));
        list.append(item);
      }
      sources.append(list);
      bubble.append(sources);
    }
    if (decision.options && decision.options.length) {
      // the question's options: a click answers with the option's words
      const options = element("div", "options");
      for (const option of decision.options) {
        const button = element("button", "option", option);
        button.type = "button";
        button.dataset.testid = "option";
        button.addEventListener("click", () => this.converse(option));
        options.append(button);
      }
      bubble.append(options);
    }
    const understood = decision.understood || decision.query;
    if (understood) bubble.append(element("p", "query", `Understood as: ${understood}`));
    this.transcript.append(bubble);
    bubble.scrollIntoView({block: "end"});
    return bubble;
  }

  // One exchange on the stateless endpoint: the whole history goes with every request.
  async converse(text) {
    const turns = this.turns.concat([{role: "user", text}]);
    const bubble = this.addUser(text);
    this.say("…");
    try {
      const decision = await postJson("/v1/converse", {turns});
      this.turns = turns.concat([{role: "system", text: decision.text || ""}]);
      this.addSystem(decision);
      this.say("");
      return decision;
    } catch (err) {
      bubble.remove();
      this.say(err.message, true);
      return null;
    }
  }
}

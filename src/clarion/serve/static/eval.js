"use strict";
// The evaluation page: a session per need; each turn is stored by the server as it happens.
(function () {
  const $ = (id) => document.getElementById(id);
  const chat = new Chat($("transcript"), $("status"));
  let session = null;
  const rated = new Map();  // system turn index -> {useful, natural}
  let systemTurns = [];

  function ratingControls(index) {
    const box = element("div", "rate");
    box.dataset.testid = "rate";
    const choice = {useful: null, natural: null};
    for (const aspect of ["useful", "natural"]) {
      const group = element("span", "aspect");
      group.append(element("span", "", aspect === "useful" ? "Useful?" : "Natural?"));
      for (const [label, value] of [["Yes", true], ["No", false]]) {
        const button = element("button", "choice", label);
        button.type = "button";
        button.dataset.testid = `${aspect}-${label.toLowerCase()}`;
        button.addEventListener("click", async () => {
          choice[aspect] = value;
          group.querySelectorAll("button").forEach((b) => b.classList.toggle("on", b === button));
          if (choice.useful === null || choice.natural === null) return;
          try {
            await postJson(`/v1/eval/sessions/${session}/ratings`, {index, ...choice});
            rated.set(index, {...choice});
            box.classList.add("saved");
            chat.say("");
          } catch (err) { chat.say(err.message, true); }
        });
        group.append(button);
      }
      box.append(group);
    }
    return box;
  }

  async function start() {
    try {
      const started = await postJson("/v1/eval/sessions", {});
      session = started.session_id;
      rated.clear();
      systemTurns = [];
      chat.clear();
      $("need-text").textContent = started.need.text;
      const opener = $("need-opener");
      opener.hidden = !started.need.opener;
      opener.textContent = started.need.opener ? `You might start with: "${started.need.opener}"` : "";
      for (const id of ["need", "composer", "finish"]) $(id).hidden = false;
      for (const id of ["intro", "done"]) $(id).hidden = true;
      $("finish").reset();
      $("message").focus();
    } catch (err) { chat.say(err.message, true); }
  }

  $("start").addEventListener("click", start);
  $("again").addEventListener("click", start);

  $("composer").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("message");
    const text = input.value.trim();
    if (!text || !session) return;
    input.value = "";
    const bubble = chat.addUser(text);
    chat.say("…");
    try {
      const reply = await postJson(`/v1/eval/sessions/${session}/turns`, {text});
      const shown = chat.addSystem(reply.decision);
      shown.append(ratingControls(reply.index));
      systemTurns.push(reply.index);
      chat.say("");
    } catch (err) {
      bubble.remove();
      chat.say(err.message, true);
    }
    input.focus();
  });

  $("finish").addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const rating = form.querySelector("input[name=rating]:checked");
    const satisfied = form.querySelector("input[name=satisfied]:checked");
    const unrated = systemTurns.filter((i) => !rated.has(i)).length;
    if (!systemTurns.length) return chat.say("Chat with the assistant first.", true);
    if (unrated) return chat.say(`Rate every reply first (${unrated} left).`, true);
    if (!rating || !satisfied) return chat.say("Rate the dialogue and say whether you got what you needed.", true);
    try {
      await postJson(`/v1/eval/sessions/${session}/finish`, {
        rating: Number(rating.value),
        satisfied: satisfied.value === "yes",
        comment: $("comment").value,
      });
      for (const id of ["composer", "finish"]) $(id).hidden = true;
      $("done").hidden = false;
      session = null;
      chat.say("");
    } catch (err) { chat.say(err.message, true); }
  });
})();

// HubFetch (components/plotkit/hub_fetch.py): a model id and a button. On the press, and only
// then, the visitor's browser asks the Hugging Face Hub for that model's config.json, reads at
// most model.max_bytes of it, and hands Python what came back.

const HUB = 'https://huggingface.co';

async function cappedText(response, maxBytes) {
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return new TextDecoder().decode(whole);
}

async function fetchConfig(id, model) {
  if (!new RegExp(model.pattern).test(id)) return { id, status: 'bad-id' };
  let response;
  try {
    response = await fetch(`${HUB}/${id}/resolve/main/config.json`, {
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    return { id, status: 'unreachable' };
  }
  if (!response.ok) return { id, status: response.status };
  const text = await cappedText(response, model.max_bytes);
  return text === null ? { id, status: 'too-large' } : { id, status: 200, text };
}

const made = (tag, properties) => Object.assign(document.createElement(tag), properties);

export function render({ model }) {
  const form = made('form', { className: 'pe-hub-form' });
  const input = made('input', {
    type: 'text',
    className: 'pe-hub-id',
    placeholder: model.placeholder,
    autocomplete: 'off',
    spellcheck: false,
    maxLength: 200,
  });
  const label = made('label', { className: 'pe-hub-label' });
  label.append(made('span', { textContent: model.label }), input);
  const button = made('button', { type: 'submit', className: 'pe-hub-fetch' });
  button.textContent = model.button;
  form.append(label, button);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    try {
      model.answer = { ...(await fetchConfig(input.value.trim(), model)), serial: Date.now() };
    } finally {
      button.disabled = false;
    }
  });
  return form;
}

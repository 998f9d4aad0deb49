// SliceReader (components/plotkit/slice_file.py): a file chooser that reads only the slices of a
// file that Python asks for (File.slice), so that a GGUF of several GiB never enters memory.

const MAX_SLICE = 16 * 1024 * 1024;

function toBase64(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

export function render({ model }) {
  const label = document.createElement('label');
  label.className = 'pe-slice-label';
  const text = document.createElement('span');
  text.textContent = model.label;
  const input = document.createElement('input');
  input.type = 'file';
  input.accept = model.accept;
  input.className = 'pe-slice-input';
  label.append(text, input);
  let file = null;
  input.addEventListener('change', () => {
    file = input.files?.length ? input.files[0] : null;
    if (!file) return;
    model.chosen = { name: file.name.slice(0, 200), size: file.size, serial: Date.now() };
  });
  model.on('request', async () => {
    const wanted = model.request;
    if (!file || !wanted || wanted.serial !== model.chosen.serial) return;
    const start = Math.max(0, Math.min(Number(wanted.offset) || 0, file.size));
    const end = Math.min(file.size, start + Math.min(Number(wanted.length) || 0, MAX_SLICE));
    try {
      const buffer = await file.slice(start, end).arrayBuffer();
      model.chunk = { serial: wanted.serial, id: wanted.id, offset: start, data: toBase64(buffer) };
    } catch (error) {
      model.chunk = { serial: wanted.serial, id: wanted.id, offset: start, error: String(error) };
    }
  });
  return label;
}

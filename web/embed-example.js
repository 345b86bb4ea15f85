// Host-page side of the example: shows the widgets' events and sizes the iframe
// from its resize messages.
const out = document.getElementById('last-event');
document.addEventListener('llm-sizer-change', (event) => {
  const e = event.detail.estimate;
  out.textContent = e ? `${event.target.id}: ${e.model} needs ${e.memory.required_bytes} bytes` : `${event.target.id}: ${event.detail.error.message}`;
});
window.addEventListener('message', (event) => {
  if (event.data?.type === 'llm-sizer:resize' && Number.isFinite(event.data.height)) {
    document.getElementById('frame').style.height = `${Math.min(2000, event.data.height)}px`;
  }
});

// Small builders the planner panels share (planner.js, planner-searches.js).
import { el } from './dom.js';

const $ = (id) => document.getElementById(id);

// A <dt>/<dd> pair whose <dd> carries data-field and data-value.
export function figure(label, text, field, value) {
  const box = document.createElement('div');
  const dd = el('dd', {}, text);
  dd.dataset.field = field;
  dd.dataset.value = value == null ? '' : String(value);
  box.append(el('dt', {}, label), dd);
  return box;
}

export function cell(text, field, value) {
  const td = el('td', {}, text);
  if (field) td.dataset.field = field;
  if (value !== undefined) td.dataset.value = value == null ? '' : String(value);
  return td;
}

// A number input's value, NaN when empty (the engine names what is wrong).
export const number = (id) => Number($(id).value === '' ? NaN : $(id).value);

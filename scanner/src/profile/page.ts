// What a profile reads from one HTML page, with htmlparser2's streaming parser (no DOM is built, and the body was
// already cut at the fetcher's size cap): links, script references, forms and their inputs, and how much text the
// page carries without running its scripts (a single-page app's shell has almost none).
import { Parser } from 'htmlparser2';

export interface FormInput {
  name: string;
  type: string;
  value: string;
}

export interface Form {
  action: string;
  method: string;
  inputs: FormInput[];
}

export interface Page {
  links: { href: string; rel: string }[];
  scripts: { src: string; module: boolean }[];
  inlineScript: string;
  forms: Form[];
  /** An element a front-end framework mounts into (`<div id="root">`, `app`, `__next`, `__nuxt`). */
  mountPoint: boolean;
  textLength: number;
  /** Links beyond MAX_LINKS, not kept. */
  droppedLinks: number;
}

const MAX_LINKS = 2_000;
const MAX_FORMS = 20;
const MAX_INPUTS = 50;
const MAX_INLINE_SCRIPT = 64 * 1024;
const MOUNT_IDS = new Set(['root', 'app', '__next', '__nuxt', 'svelte', 'main-app']);

export function readPage(html: string): Page {
  const page: Page = {
    links: [],
    scripts: [],
    inlineScript: '',
    forms: [],
    mountPoint: false,
    textLength: 0,
    droppedLinks: 0,
  };
  let form: Form | undefined;
  let inScript = false;
  let inStyle = false;
  const link = (href: string | undefined, rel = '') => {
    if (!href) return;
    if (page.links.length < MAX_LINKS) page.links.push({ href: href.trim(), rel: rel.toLowerCase() });
    else page.droppedLinks++;
  };
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        switch (name) {
          case 'a':
          case 'area':
            link(attrs.href);
            break;
          case 'link':
            link(attrs.href, attrs.rel);
            break;
          case 'iframe':
            link(attrs.src);
            break;
          case 'script':
            inScript = true;
            if (attrs.src && page.scripts.length < 200)
              page.scripts.push({ src: attrs.src.trim(), module: attrs.type === 'module' });
            break;
          case 'style':
            inStyle = true;
            break;
          case 'form':
            if (page.forms.length < MAX_FORMS) {
              form = { action: attrs.action ?? '', method: (attrs.method ?? 'get').toLowerCase(), inputs: [] };
              page.forms.push(form);
            }
            break;
          case 'input':
          case 'select':
          case 'textarea':
          case 'button':
            if (form && attrs.name && form.inputs.length < MAX_INPUTS)
              form.inputs.push({
                name: attrs.name,
                type: (attrs.type ?? (name === 'input' ? 'text' : name)).toLowerCase(),
                value: attrs.value ?? '',
              });
            break;
          case 'div':
          case 'main':
          case 'app-root':
            if (name === 'app-root' || (attrs.id && MOUNT_IDS.has(attrs.id))) page.mountPoint = true;
            break;
        }
      },
      onclosetag(name) {
        if (name === 'script') inScript = false;
        if (name === 'style') inStyle = false;
        if (name === 'form') form = undefined;
      },
      ontext(text) {
        if (inScript) {
          if (page.inlineScript.length < MAX_INLINE_SCRIPT)
            page.inlineScript += text.slice(0, MAX_INLINE_SCRIPT - page.inlineScript.length);
        } else if (!inStyle) page.textLength += text.trim().length;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return page;
}

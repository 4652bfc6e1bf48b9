/**
 * Fenced code blocks of a markdown file, with the words of their info string: the first is the
 * language, and `no-run: reason` marks a code block that is shown but deliberately not run.
 */

/** One fenced code block. */
export interface CodeBlock {
  /** 1-based line of the opening fence. */
  line: number
  /** The info string's first word, lower-cased; '' for an untagged block. */
  language: string
  /** Set when the info string says `no-run`: the text after it (the reason), possibly ''. */
  noRun: string | undefined
  /** The lines between the fences, joined with '\n'. */
  code: string
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/

function readInfo (info: string): { language: string, noRun: string | undefined } {
  const trimmed = info.trim()
  const language = (trimmed.split(/\s+/, 1)[0] ?? '').toLowerCase()
  const marker = /(?:^|\s)no-run\b:?\s*(.*)$/.exec(trimmed.slice(language.length))
  return { language, noRun: marker === null ? undefined : (marker[1] ?? '').trim() }
}

/** Every fenced code block in `markdown`, in order; an unclosed block runs to the end of the file. */
export function codeBlocks (markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = []
  const lines = markdown.split(/\r?\n/)
  let open: { fence: string, block: CodeBlock, body: string[] } | undefined
  lines.forEach((text, index) => {
    const fence = FENCE.exec(text)
    if (open === undefined) {
      if (fence === null) return
      const [, marks = '', info = ''] = fence
      open = { fence: marks, block: { line: index + 1, ...readInfo(info), code: '' }, body: [] }
      return
    }
    // A closing fence uses the same character, at least as many, and nothing after it.
    if (fence !== null && fence[1]?.[0] === open.fence[0] && (fence[1]?.length ?? 0) >= open.fence.length && fence[2]?.trim() === '') {
      blocks.push({ ...open.block, code: open.body.join('\n') })
      open = undefined
      return
    }
    open.body.push(text)
  })
  if (open !== undefined) blocks.push({ ...open.block, code: open.body.join('\n') })
  return blocks
}

// The keyboard shortcuts the `?` sheet lists, by section (spec 06 §9.2). A view with its own key adds one line.

export interface Shortcut {
  keys: readonly string[];
  what: string;
}

export const SHORTCUTS: ReadonlyArray<{ section: string; keys: readonly Shortcut[] }> = [
  {
    section: 'Anywhere',
    keys: [
      { keys: ['Ctrl K', '⌘ K', 'Ctrl P'], what: 'command palette: jump to a job or run an action' },
      { keys: ['/'], what: 'focus the job filter' },
      { keys: ['g'], what: 'refresh now' },
      { keys: ['v'], what: 'toggle the week calendar view' },
      { keys: ['i'], what: 'incident timeline' },
      { keys: ['w'], what: 'wallboard (TV) view' },
      { keys: ['t'], what: 'next theme (light, dark, high-contrast light, high-contrast dark)' },
      { keys: ['T'], what: 'light ⇄ dark at the same contrast' },
      { keys: ['?'], what: 'this sheet' },
      { keys: ['Esc'], what: 'close the drawer, dialog or palette' },
    ],
  },
  {
    section: 'Jobs table',
    keys: [
      { keys: ['j', '↓'], what: 'select the next job' },
      { keys: ['k', '↑'], what: 'select the previous job' },
      { keys: ['Enter'], what: 'open the selected job' },
      { keys: ['r'], what: 'run the selected job now' },
      { keys: ['x'], what: 'cancel the selected job' },
      { keys: ['p'], what: 'pause the selected job for an hour, or resume it' },
      { keys: ['c'], what: "copy the selected job's command" },
      { keys: ['Tab', 'Enter'], what: 'on a column header: sort by it (again: reverse)' },
    ],
  },
  {
    section: 'Job drawer',
    keys: [
      { keys: ['1', '2', '3', '4'], what: 'tabs: logs, history, schedule, resources' },
      { keys: ['←', '→'], what: 'on the tab strip: previous / next tab' },
    ],
  },
];

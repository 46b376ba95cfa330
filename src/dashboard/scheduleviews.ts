// The views of the schedule and state family in the URL hash (`#radar`, `#pressure`, `#heat`, `#state`).
export const SCHEDULE_VIEWS = ['radar', 'pressure', 'heat', 'state'] as const;
export type ScheduleView = (typeof SCHEDULE_VIEWS)[number];

export function isScheduleView(text: string | undefined): text is ScheduleView {
  return SCHEDULE_VIEWS.includes(text as ScheduleView);
}

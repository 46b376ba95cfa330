// Desktop notifications (settings → notifications): when a refresh finds a job failing anew, one browser
// notification for the batch. Permission is the browser's; the preference only says whether to ask.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { failureNotice, newFailures, ON_OFF, type OnOff } from '../../dashboard/settings.ts';
import type { ApiJob } from '../../dashboard/types.ts';
import type { NotifyState } from '../chrome/SettingsDialog.tsx';
import { usePref } from '../io/hooks.ts';

function notificationState(pref: OnOff): NotifyState {
  if (typeof Notification === 'undefined') return 'unsupported';
  if (Notification.permission === 'denied') return 'denied';
  return pref === 'on' && Notification.permission === 'granted' ? 'on' : 'off';
}

/**
 * The settings row's state (a getter: reading the browser's permission is not free, so only the open settings
 * dialog asks) and its setter; `toast` reports a refused permission.
 */
export function useNotifications(
  jobs: ApiJob[] | null,
  toast: (text: string, tone: 'bad') => void,
): [() => NotifyState, (on: boolean) => void] {
  const [notifyPref, setNotifyPref] = usePref<OnOff>('notify', 'off', ON_OFF);
  const [, setNotifyNonce] = useState(0);
  const prevJobs = useRef<ApiJob[] | null>(null);

  useEffect(() => {
    if (jobs === null) return;
    const failed = newFailures(prevJobs.current, jobs);
    prevJobs.current = jobs;
    if (failed.length === 0 || notificationState(notifyPref) !== 'on') return;
    const notice = failureNotice(failed);
    if (notice === null) return;
    try {
      new Notification(notice.title, { body: notice.body, tag: 'cronstable-failure' });
    } catch {
      // some browsers only allow notifications from a service worker
    }
  }, [jobs]);

  const setNotify = useCallback(
    (on: boolean) => {
      if (!on || typeof Notification === 'undefined') {
        setNotifyPref('off');
        return;
      }
      void Notification.requestPermission().then((perm) => {
        setNotifyPref(perm === 'granted' ? 'on' : 'off');
        setNotifyNonce((n) => n + 1);
        if (perm !== 'granted') toast('The browser did not allow notifications.', 'bad');
      });
    },
    [setNotifyPref],
  );
  return [() => notificationState(notifyPref), setNotify];
}

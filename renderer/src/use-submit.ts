import { useState } from 'preact/hooks';

/**
 * A form's submit: the default navigation prevented, `busy` while `action` runs (the button is disabled), and
 * its failure kept as `error` for the form to show. Every form of the dashboard submits through this.
 */
export function useSubmit(action: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

interface Props {
  message?: string;
}

/** Shown when there is no session: the page cannot sign itself in, only a link from the CLI can. */
export function SignInScreen({ message }: Props) {
  return (
    <main className="sign-in" id="main">
      <div className="card sign-in-card">
        <h1>Sign in to Patchbay</h1>
        {message ? <p role="alert" className="error-text">{message}</p> : null}
        <p>The dashboard opens with a one-time sign-in link. To get one, run this in a terminal:</p>
        <pre className="code-block"><code>patchbay ui</code></pre>
        <p>
          or open the <code>Sign in: http://127.0.0.1:…/ui/#code=…</code> link that <code>patchbay serve</code> printed when it started.
          A link works once and for 10 minutes.
        </p>
      </div>
    </main>
  );
}

// #/account: the signed-in user's profile, 2FA and personal access token.
import { PersonalToken } from './personal-token.tsx';
import { ProfileFacts } from './profile-facts.tsx';
import { TwoFactor } from './two-factor.tsx';

export function AccountPage() {
  return (
    <main class="account">
      <h1>Account</h1>
      <ProfileFacts />
      <TwoFactor />
      <PersonalToken />
    </main>
  );
}

import { createContext, useContext } from 'react';
import type { PagePath } from './use-route.ts';

export const NavigationContext = createContext<(page: PagePath) => void>(() => {});
export const useNavigate = () => useContext(NavigationContext);
